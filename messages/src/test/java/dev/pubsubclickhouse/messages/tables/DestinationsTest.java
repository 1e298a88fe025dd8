package dev.pubsubclickhouse.messages.tables;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableNotFoundException;
import dev.pubsubclickhouse.core.schema.TableSchema;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.messages.PubSubMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The routing rules, with tables kept in memory; RoutingIT has the real ClickHouse. */
class DestinationsTest {
  private static final TableName EVENTS = new TableName("db", "events");
  private static final TableName CLICKS = new TableName("db", "clicks");
  private static final TableName GONE = new TableName("db", "gone");
  private static final TableName FLAKY = new TableName("db", "flaky");

  private final AtomicInteger reads = new AtomicInteger();
  private final AtomicLong clock = new AtomicLong();
  private boolean flakyAnswers;

  private Destination open(TableName name) {
    reads.incrementAndGet();
    if (name.equals(GONE)) {
      throw new TableNotFoundException(name);
    }
    if (name.equals(FLAKY) && !flakyAnswers) {
      throw new IllegalStateException("Connection refused");
    }
    TargetTable table =
        new TargetTable(
            name, table1 -> new TableSchema(table1, List.of(ColumnDefinition.of("id", "UInt32"))));
    return new Destination(table, null);
  }

  private Destinations destinations(Optional<String> attribute) {
    TableMapping mapping =
        TableMapping.builder(EVENTS)
            .tableAttribute(attribute)
            .allowedTables(List.of(CLICKS, GONE, FLAKY))
            .build();
    Function<TableName, Destination> opener = this::open;
    return new Destinations(mapping, opener, open(EVENTS), clock::get, null);
  }

  private static PubSubMessage message(Map<String, String> attributes) {
    return PubSubMessage.builder().attributes(attributes).messageId("1").build();
  }

  @Test
  void withoutATableAttributeEveryMessageGoesToTheDefaultTable() {
    Destinations destinations = destinations(Optional.empty());
    Route route = destinations.route(message(Map.of("table", "clicks")));
    assertThat(route.destination()).isSameAs(destinations.defaultDestination());
    assertThat(route.isRejected()).isFalse();
  }

  @Test
  void anAllowedTableIsReadOnceWhenAMessageFirstNamesIt() {
    Destinations destinations = destinations(Optional.of("table"));
    int before = reads.get();
    Route first = destinations.route(message(Map.of("table", "clicks")));
    Route second = destinations.route(message(Map.of("table", "db.clicks")));
    assertThat(first.destination().table().name()).isEqualTo(CLICKS);
    assertThat(second.destination()).isSameAs(first.destination());
    assertThat(reads.get() - before).isEqualTo(1);
    assertThat(destinations.route(message(Map.of())).destination())
        .isSameAs(destinations.defaultDestination());
    assertThat(destinations.route(message(Map.of("table", "events"))).destination())
        .as("the default table is always allowed")
        .isSameAs(destinations.defaultDestination());
  }

  @Test
  void aNameThatIsNotAllowedOrNotATableIsRejectedThroughTheDefaultTablesWriter() {
    Destinations destinations = destinations(Optional.of("table"));
    Route other = destinations.route(message(Map.of("table", "other")));
    assertThat(other.rejection())
        .isEqualTo(
            "attribute table names table db.other, which is not one of CLICKHOUSE_TABLES"
                + " (db.clicks, db.flaky, db.gone)");
    assertThat(other.destination()).isSameAs(destinations.defaultDestination());
    assertThat(destinations.route(message(Map.of("table", ""))).rejection())
        .isEqualTo("attribute table does not name a table: a table name is required");
  }

  @Test
  void aMissingTableIsRejectedAndLookedForAgainOnlyAfterAWhile() {
    Destinations destinations = destinations(Optional.of("table"));
    int before = reads.get();
    for (int i = 0; i < 5; i++) {
      assertThat(destinations.route(message(Map.of("table", "gone"))).rejection())
          .isEqualTo(
              "attribute table names a table that cannot be written: table db.gone does not"
                  + " exist or is not visible to this user");
    }
    assertThat(reads.get() - before).isEqualTo(1);
    clock.addAndGet(Destinations.RECHECK_MISSING.plus(Duration.ofMillis(1)).toNanos());
    destinations.route(message(Map.of("table", "gone")));
    assertThat(reads.get() - before).isEqualTo(2);
  }

  @Test
  void aTableWhoseSchemaCannotBeReadNowIsUnavailableNotRejected() {
    Destinations destinations = destinations(Optional.of("table"));
    Route route = destinations.route(message(Map.of("table", "flaky")));
    assertThat(route.isUnavailable()).isTrue();
    assertThat(route.unavailable())
        .isEqualTo("the schema of table db.flaky could not be read: Connection refused");
    flakyAnswers = true;
    assertThat(destinations.route(message(Map.of("table", "flaky"))).destination().table().name())
        .isEqualTo(FLAKY);
  }
}
