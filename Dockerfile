# Lakestream server image: builds the server distribution, then runs it on a JRE.
FROM maven:3.9-eclipse-temurin-25 AS build
WORKDIR /src
COPY . .
RUN mvn -B -ntp -pl catalog-server -am -DskipTests package

FROM eclipse-temurin:25-jre
WORKDIR /opt/lakestream
COPY --from=build /src/catalog-server/target/dist/lib/ lib/
ENV LAKESTREAM_DATA_DIR=/var/lib/lakestream \
    LAKESTREAM_BIND=0.0.0.0
VOLUME /var/lib/lakestream
EXPOSE 8181 9123 32010
ENTRYPOINT ["java", "-Xms256m", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError", \
            "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", \
            "--add-opens=java.base/java.nio=ALL-UNNAMED", \
            "-cp", "/opt/lakestream/lib/*", "io.lakestream.server.Main"]
