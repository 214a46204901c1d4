package io.lakestream.ui;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.LakestreamExtension;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * With {@code auth.mode=oauth2} the console asks for credentials, gets a token from the server's
 * token endpoint, and shows only the namespaces the principal may read.
 */
class ConsoleBrowserAuthIT {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder()
          .setting("tiering.enabled", "false")
          .oauth2(
              "writer:w-secret,analyst:a-secret", "writer:write:default,analyst:read:default.sales")
          .catalogCredential("writer:w-secret")
          .build();

  private static ChromeDriver driver;

  @BeforeAll
  static void start() throws Exception {
    RESTCatalog catalog = LAKESTREAM.catalog();
    for (String namespace : List.of("sales", "payroll")) {
      catalog.createNamespace(Namespace.of(namespace), new HashMap<>());
      catalog.createTable(
          TableIdentifier.of(namespace, "orders"),
          new Schema(Types.NestedField.required(1, "id", Types.LongType.get())),
          PartitionSpec.unpartitioned(),
          new HashMap<>(Map.of("lakestream.kind", "log")));
    }
    driver = HeadlessChromium.start();
  }

  @AfterAll
  static void stop() {
    if (driver != null) {
      driver.quit();
    }
  }

  @Test
  void signsInAndSeesOnlyPermittedNamespaces() throws Exception {
    WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(20));
    driver.get(LAKESTREAM.base() + "/ui/");
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("login-form")));
    HeadlessChromium.screenshot(driver, "login");

    driver.findElement(By.id("client-id")).sendKeys("analyst");
    driver.findElement(By.id("client-secret")).sendKeys("wrong");
    driver.findElement(By.id("login-button")).click();
    wait.until(ExpectedConditions.not(ExpectedConditions.textToBe(By.id("login-error"), "")));
    assertThat(driver.findElement(By.id("view")).getText()).isEmpty();

    driver.findElement(By.id("client-id")).clear();
    driver.findElement(By.id("client-secret")).clear();
    driver.findElement(By.id("client-id")).sendKeys("analyst");
    driver.findElement(By.id("client-secret")).sendKeys("a-secret");
    driver.findElement(By.id("login-button")).click();
    wait.until(ExpectedConditions.elementToBeClickable(By.id("link-sales.orders")));
    List<WebElement> namespaces = driver.findElements(By.cssSelector("h2.namespace"));
    assertThat(namespaces).extracting(WebElement::getText).containsExactly("sales");
    assertThat(driver.findElements(By.id("link-payroll.orders"))).isEmpty();
    assertThat(driver.getCurrentUrl()).doesNotContain("secret", "token");
    HeadlessChromium.screenshot(driver, "signed-in");
  }
}
