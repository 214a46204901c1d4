package io.lakestream.openapi.rck;

import org.apache.iceberg.rest.RESTCompatibilityKitViewCatalogTests;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Apache Iceberg's REST Compatibility Kit, view half (views and their conflicts with tables),
 * against the packaged server. Every test the kit's flags select must pass.
 */
@ExtendWith(PackagedServerExtension.class)
class RestCompatibilityKitViewCatalogIT extends RESTCompatibilityKitViewCatalogTests {}
