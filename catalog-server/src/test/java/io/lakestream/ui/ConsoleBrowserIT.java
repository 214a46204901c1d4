package io.lakestream.ui;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.client.AppendWriter;
import io.lakestream.client.TablePath;
import io.lakestream.client.WriterOptions;
import io.lakestream.testing.LakestreamExtension;
import java.time.Duration;
import java.util.HashMap;
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
 * The console in a real headless chromium: browse to a table written during the test, see its row
 * count and lag move after more writes, run a query in the SQL editor. Screenshots land in {@code
 * target/console-screenshots/}. Tiering is off so that the lag is exactly the rows written.
 */
class ConsoleBrowserIT {
  @RegisterExtension
  static final LakestreamExtension LAKESTREAM =
      LakestreamExtension.builder().setting("tiering.enabled", "false").build();

  private static ChromeDriver driver;

  @BeforeAll
  static void start() throws Exception {
    RESTCatalog catalog = LAKESTREAM.catalog();
    catalog.createNamespace(Namespace.of("web"), new HashMap<>());
    catalog.createTable(
        TableIdentifier.of("web", "clicks"),
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "page", Types.StringType.get())),
        PartitionSpec.unpartitioned(),
        new HashMap<>(Map.of("lakestream.kind", "log", "lakestream.buckets", "2")));
    write(0, 30);
    driver = HeadlessChromium.start();
  }

  @AfterAll
  static void stop() {
    if (driver != null) {
      driver.quit();
    }
  }

  private static void write(long from, long to) {
    try (AppendWriter writer =
        LAKESTREAM
            .connection()
            .table(TablePath.of("web.clicks"))
            .newAppendWriter(WriterOptions.defaults())) {
      for (long id = from; id < to; id++) {
        writer.append(id, "/page/" + (id % 4));
      }
      writer.flush();
    }
  }

  private static WebDriverWait waiting() {
    return new WebDriverWait(driver, Duration.ofSeconds(20));
  }

  private static void waitForText(By by, String text) {
    waiting().until(ExpectedConditions.textToBe(by, text));
  }

  /** The sum of the Latest column of the page's buckets table. */
  private static long latestOffsetsSum() {
    long sum = 0;
    for (WebElement cell : driver.findElements(By.cssSelector("#buckets tr td:nth-child(4)"))) {
      sum += Long.parseLong(cell.getText().trim());
    }
    return sum;
  }

  @Test
  void browsesATableWatchesItGrowAndQueriesIt() throws Exception {
    driver.get(LAKESTREAM.base() + "/");
    By link = By.id("link-web.clicks");
    WebElement tableLink = waiting().until(ExpectedConditions.elementToBeClickable(link));
    WebElement row = tableLink.findElement(By.xpath("./ancestor::tr"));
    assertThat(row.findElement(By.cssSelector("td.rows")).getText()).isEqualTo("30");
    assertThat(row.findElement(By.cssSelector("td.lag")).getText()).isEqualTo("30");
    assertThat(driver.getCurrentUrl()).endsWith("/ui/");
    HeadlessChromium.screenshot(driver, "overview");

    tableLink.click();
    waitForText(By.id("table-rows"), "30");
    assertThat(driver.findElement(By.id("table-lag")).getText()).isEqualTo("30");
    waiting().until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#tail tr"), 1 + 20));
    assertThat(driver.findElement(By.id("buckets")).getText()).contains("Earliest", "Latest");
    assertThat(latestOffsetsSum()).isEqualTo(30);
    // Chart.js came from the server's jar (no CDN) and drew the tiering chart's canvas
    assertThat(driver.executeScript("return typeof Chart === 'function' && Chart.version"))
        .isEqualTo("4.4.1");
    assertThat(driver.executeScript("return !!Chart.getChart('tiering-chart')")).isEqualTo(true);

    write(30, 50);
    waitForText(By.id("table-rows"), "50");
    waitForText(By.id("table-lag"), "50");
    waiting().until(browser -> latestOffsetsSum() == 50);
    waiting().until(ExpectedConditions.textToBePresentInElementLocated(By.id("tail"), "/page/"));
    HeadlessChromium.screenshot(driver, "table");

    driver.findElement(By.id("nav-sql")).click();
    WebElement editor = waiting().until(ExpectedConditions.elementToBeClickable(By.id("sql-text")));
    editor.clear();
    editor.sendKeys("SELECT page, count(*) AS n FROM web.clicks GROUP BY page ORDER BY page");
    driver.findElement(By.id("sql-run")).click();
    WebElement result =
        waiting().until(ExpectedConditions.visibilityOfElementLocated(By.id("sql-table")));
    assertThat(result.findElements(By.tagName("tr"))).hasSize(1 + 4);
    assertThat(result.getText()).contains("page n", "/page/0 13", "/page/3 12");
    HeadlessChromium.screenshot(driver, "sql");

    editor.clear();
    editor.sendKeys("SELECT * FROM web.nothing_here");
    driver.findElement(By.id("sql-run")).click();
    waiting()
        .until(
            ExpectedConditions.textToBePresentInElementLocated(By.id("sql-error"), "nothing_here"));
    HeadlessChromium.screenshot(driver, "sql-error");
  }
}
