package io.lakestream.ui;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's {@code chromium} driven headless through its {@code chromedriver}, both named by path so
 * that Selenium Manager never downloads anything. Installs both with apt when missing and running
 * as root; otherwise fails saying what to install.
 */
final class HeadlessChromium {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

  private HeadlessChromium() {}

  /** A new headless browser; the caller quits it. */
  static ChromeDriver start() throws IOException, InterruptedException {
    installWhenMissing();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1400,1000",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync");
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile())
            .usingAnyFreePort()
            .build();
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    return driver;
  }

  private static void installWhenMissing() throws IOException, InterruptedException {
    if (Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER)) {
      return;
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    if (!root) {
      throw new IllegalStateException(
          "The console's browser tests need Debian's chromium and chromium-driver at "
              + CHROMIUM
              + " and "
              + CHROMEDRIVER
              + ": run `sudo apt-get install -y chromium chromium-driver`");
    }
    // A fresh machine's package lists may be empty: update them first.
    File log = new File("target/console-apt-install.log");
    for (List<String> command :
        List.of(
            List.of("apt-get", "update", "-q"),
            List.of("apt-get", "install", "-y", "-q", "chromium", "chromium-driver"))) {
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log));
      builder.environment().put("DEBIAN_FRONTEND", "noninteractive");
      Process step = builder.start();
      if (!step.waitFor(15, TimeUnit.MINUTES) || step.exitValue() != 0) {
        step.destroyForcibly();
        throw new IllegalStateException(
            String.join(" ", command) + " failed; see target/console-apt-install.log");
      }
    }
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      throw new IllegalStateException(
          "apt-get installed chromium but " + CHROMIUM + " or " + CHROMEDRIVER + " is missing");
    }
  }

  /** Saves a PNG of the page under {@code target/console-screenshots/}. */
  static Path screenshot(ChromeDriver driver, String name) throws IOException {
    Files.createDirectories(SCREENSHOTS);
    Path file = SCREENSHOTS.resolve(name + ".png");
    Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
    return file;
  }
}
