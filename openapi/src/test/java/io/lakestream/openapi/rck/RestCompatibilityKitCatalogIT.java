package io.lakestream.openapi.rck;

import org.apache.iceberg.rest.RESTCompatibilityKitCatalogTests;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Apache Iceberg's REST Compatibility Kit, catalog half (namespaces, tables, transactions), against
 * the packaged server. Every test the kit's flags select must pass.
 */
@ExtendWith(PackagedServerExtension.class)
class RestCompatibilityKitCatalogIT extends RESTCompatibilityKitCatalogTests {}
