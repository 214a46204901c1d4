package io.lakestream.flink;

import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.factories.CatalogFactory;
import org.apache.flink.table.factories.FactoryUtil;

/**
 * Makes the catalogs of {@code CREATE CATALOG ... WITH ('type'='lakestream', ...)}: one Lakestream
 * server (its REST endpoint and stream RPC), its namespaces as databases. Options are those of
 * {@link LakestreamOptions}; an unknown or missing one fails the statement, naming it.
 */
public final class LakestreamCatalogFactory implements CatalogFactory {
  /** The catalog type, {@code 'type'='lakestream'}. */
  public static final String IDENTIFIER = "lakestream";

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of(LakestreamOptions.URI, LakestreamOptions.RPC_ADDRESS);
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of(
        LakestreamOptions.TOKEN,
        LakestreamOptions.CREDENTIAL,
        LakestreamOptions.WAREHOUSE,
        LakestreamOptions.DEFAULT_DATABASE);
  }

  @Override
  public Catalog createCatalog(Context context) {
    FactoryUtil.CatalogFactoryHelper helper = FactoryUtil.createCatalogFactoryHelper(this, context);
    helper.validate();
    return new LakestreamCatalog(
        context.getName(),
        helper.getOptions().get(LakestreamOptions.DEFAULT_DATABASE),
        ServerAddress.of(helper.getOptions()));
  }
}
