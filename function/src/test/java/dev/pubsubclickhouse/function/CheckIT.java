package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pubsubclickhouse.testing.ClickHouseMistakes;
import dev.pubsubclickhouse.testing.ClickHouseServer;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.GrantsSqlUser;
import dev.pubsubclickhouse.testing.ServiceJava;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code java -jar function.jar --check}: the column plans, and whether the service would serve.
 */
@ClickHouseTest
class CheckIT {
  private final TestDatabase db;
  @TempDir Path directory;

  CheckIT(TestDatabase db) {
    this.db = db;
  }

  private record Checked(int exitCode, String out, String err) {}

  /** The jar with {@code --check}, the test database's ClickHouse and these settings. */
  private Checked check(Map<String, String> settings) throws Exception {
    Path jar = Path.of(System.getProperty("function.jar", "target/function.jar"));
    File out = directory.resolve("out").toFile();
    File err = directory.resolve("err").toFile();
    ProcessBuilder builder =
        new ProcessBuilder(ServiceJava.ofTests().toString(), "-jar", jar.toString(), "--check")
            .redirectOutput(out)
            .redirectError(err);
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(name -> name.startsWith("CLICKHOUSE_") || name.startsWith("BATCH_"));
    env.put("CLICKHOUSE_URL", db.server().url());
    env.put("CLICKHOUSE_USER", db.server().user());
    env.put("CLICKHOUSE_PASSWORD", db.server().password());
    env.put("CLICKHOUSE_DATABASE", db.name());
    env.put("PUSH_AUTH", "none");
    env.putAll(settings);
    Process process = builder.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Checked(
        process.exitValue(),
        Files.readString(out.toPath(), StandardCharsets.UTF_8),
        Files.readString(err.toPath(), StandardCharsets.UTF_8));
  }

  @Test
  void aTableThatFitsPrintsItsPlanAndExitsZero() throws Exception {
    db.execute(
        "CREATE TABLE events (n UInt32, name String, ts DateTime DEFAULT now(),"
            + " tags Array(String), note Nullable(String), doubled UInt64 MATERIALIZED n * 2,"
            + " _pubsub_message_id String) ENGINE = MergeTree ORDER BY n");
    db.execute(
        "CREATE TABLE dead_letters (raw_message String, error_message String,"
            + " stack_trace String, failed_at DateTime) ENGINE = MergeTree ORDER BY failed_at");

    Checked checked =
        check(Map.of("CLICKHOUSE_TABLE", "events", "CLICKHOUSE_DEAD_LETTER_TABLE", "dead_letters"));

    assertThat(checked.exitCode()).as(checked.err()).isZero();
    String d = db.name();
    assertThat(checked.out())
        .isEqualTo(
            String.join(
                "\n",
                "ClickHouse at " + db.server().url() + " as user " + db.server().user(),
                "",
                "table " + d + ".events (CLICKHOUSE_TABLE)",
                "column              clickhouse type   message field  how",
                "n                   UInt32            n              number or numeric string,"
                    + " range-checked; absent: message refused (no DEFAULT, not Nullable)",
                "name                String            name           text as is; other JSON as"
                    + " its compact text; absent: message refused (no DEFAULT, not Nullable)",
                "ts                  DateTime          ts             ISO-8601 date-time,"
                    + " 'YYYY-MM-DD hh:mm:ss' or epoch seconds; absent: DEFAULT now()",
                "tags                Array(String)     tags           JSON array (null: empty);"
                    + " absent: empty",
                "note                Nullable(String)  note           text as is; other JSON as"
                    + " its compact text, or null; absent: NULL",
                "doubled             UInt64            -              MATERIALIZED, computed by"
                    + " ClickHouse",
                "_pubsub_message_id  String            (messageId)    message metadata",
                "fields no column takes are ignored",
                "",
                "dead-letter table " + d + ".dead_letters (CLICKHOUSE_DEAD_LETTER_TABLE)",
                "column         clickhouse type  dead letter           how",
                "raw_message    String           (the message's data)  written with each dead"
                    + " letter",
                "error_message  String           (the reason)          written with each dead"
                    + " letter",
                "stack_trace    String           (where it failed)     written with each dead"
                    + " letter",
                "failed_at      DateTime         (time of failure)     written with each dead"
                    + " letter",
                "",
                "would serve: every table answers and every column can be written",
                ""));
    assertThat(checked.err()).isEmpty();
    assertThat(db.query("SELECT count() FROM system.tables WHERE database = currentDatabase()"))
        .as("it creates nothing")
        .isEqualTo("2");
  }

  @Test
  void aMappedColumnShowsThePathItIsFedFrom() throws Exception {
    db.execute(
        "CREATE TABLE mapped (user_id UInt64, raw String, origin String DEFAULT '', n UInt32)"
            + " ENGINE = MergeTree ORDER BY user_id");

    Checked checked =
        check(
            Map.of(
                "CLICKHOUSE_TABLE",
                "mapped",
                "COLUMN_MAPPING",
                "user_id=user.id,raw=$data,origin=$attributes.origin"));

    assertThat(checked.exitCode()).as(checked.err()).isZero();
    assertThat(checked.out().replaceAll(" +", " "))
        .contains(
            "\nuser_id UInt64 user.id number or numeric string, range-checked; absent: message"
                + " refused (no DEFAULT, not Nullable)\n")
        .contains("\nraw String $data text as is")
        .contains("\norigin String $attributes.origin text as is")
        .contains("\nn UInt32 n number or numeric string");
  }

  @Test
  void aTableItCannotWriteAndAMissingOneExitOneNamingEach() throws Exception {
    db.execute("CREATE TABLE main (n UInt32) ENGINE = MergeTree ORDER BY n");
    db.execute("CREATE TABLE shapes (n UInt32, shape Polygon) ENGINE = MergeTree ORDER BY n");

    Checked checked =
        check(
            Map.of(
                "CLICKHOUSE_TABLE", "main",
                "CLICKHOUSE_TABLE_ATTRIBUTE", "table",
                "CLICKHOUSE_TABLES", "shapes,absent",
                "CLICKHOUSE_DEAD_LETTER_TABLE", "no_dead_letters"));

    assertThat(checked.exitCode()).as(checked.out() + checked.err()).isEqualTo(1);
    String d = db.name();
    String unwritable =
        "column 'shape' of "
            + d
            + ".shapes has type Polygon, which cannot be written (and it has no DEFAULT)";
    String missing = "table " + d + ".absent does not exist or is not visible to this user";
    String noDeadLetters =
        "dead-letter table "
            + d
            + ".no_dead_letters does not exist (create it, or set CREATE_DEAD_LETTER_TABLE=true)";
    assertThat(checked.out())
        .contains(
            "\ntable " + d + ".main (CLICKHOUSE_TABLE)\n",
            "\ntable " + d + ".shapes (CLICKHOUSE_TABLES): " + unwritable + "\n",
            "\ntable " + d + ".absent (CLICKHOUSE_TABLES): " + missing + "\n")
        .endsWith(
            String.join(
                "\n",
                "would not serve:",
                "  " + unwritable,
                "  " + missing,
                "  " + noDeadLetters,
                ""));
  }

  @Test
  void aCdcTargetIsCheckedWithItsChangeColumns() throws Exception {
    db.execute("CREATE TABLE fallback (n UInt32) ENGINE = MergeTree ORDER BY n");
    db.execute(
        "CREATE TABLE orders (id UInt32, __version UInt64, __is_deleted UInt8)"
            + " ENGINE = ReplacingMergeTree(__version, __is_deleted) ORDER BY id");

    Checked checked =
        check(
            Map.of(
                "CLICKHOUSE_TABLE", "fallback",
                "PAYLOAD_FORMAT", "debezium",
                "CDC_TABLES", "public.orders=orders"));

    assertThat(checked.exitCode()).as(checked.out() + checked.err()).isZero();
    assertThat(checked.out())
        .contains(
            String.join(
                "\n",
                "table " + db.name() + ".orders (CDC_TABLES)",
                "column        clickhouse type  message field   how",
                "id            UInt32           id              number or numeric string,"
                    + " range-checked; absent: message refused (no DEFAULT, not Nullable)",
                "__version     UInt64           (change event)  change metadata (docs/cdc.md)",
                "__is_deleted  UInt8            (change event)  change metadata (docs/cdc.md)",
                ""))
        .contains(
            "\ntruncate marks table "
                + db.name()
                + "._cdc_truncate_marks (CDC_TRUNCATE_MARKS_TABLE): missing; the service creates"
                + " it at start\n");
    db.execute(
        "CREATE TABLE _cdc_truncate_marks (target String, version UInt64) ENGINE = MergeTree"
            + " ORDER BY target");
    assertThat(
            check(
                    Map.of(
                        "CLICKHOUSE_TABLE", "fallback",
                        "PAYLOAD_FORMAT", "debezium",
                        "CDC_TABLES", "public.orders=orders"))
                .out())
        .contains(
            "\ntruncate marks table "
                + db.name()
                + "._cdc_truncate_marks (CDC_TRUNCATE_MARKS_TABLE): readable\n");
  }

  @Test
  void aMisspeltVariableIsCountedInTheSummaryAndStillExitsZero() throws Exception {
    db.execute("CREATE TABLE warned (n UInt32) ENGINE = MergeTree ORDER BY n");

    Checked checked = check(Map.of("CLICKHOUSE_TABLE", "warned", "COLUM_MAPPING", "n=m"));

    assertThat(checked.exitCode()).as(checked.out() + checked.err()).isZero();
    assertThat(checked.err())
        .contains("COLUM_MAPPING is not a parameter; did you mean COLUMN_MAPPING?");
    assertThat(checked.out())
        .endsWith(
            "\nwould serve, with 1 warning above: every table answers and every column can be"
                + " written\n");
  }

  @Test
  void aConfigurationErrorExitsTwoWithOneLine() throws Exception {
    Checked checked = check(Map.of("CLICKHOUSE_TABLE", "t", "BATCH_MAX_ROWS", "many"));

    assertThat(checked.exitCode()).isEqualTo(2);
    assertThat(checked.out()).isEmpty();
    assertThat(checked.err())
        .isEqualTo("pubsub-clickhouse: BATCH_MAX_ROWS: expected a whole number, got 'many'\n");
  }

  @ParameterizedTest
  @EnumSource(ClickHouseMistakes.class)
  void aClickHouseMistakeExitsOneWithTheServicesLine(ClickHouseMistakes mistake) throws Exception {
    Assumptions.assumeTrue(
        db.server().url().startsWith("http://127.0.0.1"), "needs the local pipeline user");
    try (ClickHouseMistakes.Setup setup = mistake.settings(db.server())) {
      Map<String, String> settings = new java.util.HashMap<>(setup.environment());
      settings.put("CLICKHOUSE_TABLE", "events");
      Checked checked = check(settings);

      assertThat(checked.exitCode()).as(checked.out() + checked.err()).isEqualTo(1);
      assertThat(checked.out().lines().toList())
          .isEqualTo(
              List.of(
                  "ClickHouse at " + setup.url() + " as user " + setup.user(),
                  "",
                  "would not serve:",
                  "  " + mistake.line(setup.url())));
    }
  }

  @Test
  void aMarksTableTheUserMayNotCreateIsAProblem() throws Exception {
    ClickHouseServer login = GrantsSqlUser.on(db);
    Map<String, String> asGrantsSqlUser =
        Map.of(
            "CLICKHOUSE_USER", login.user(),
            "CLICKHOUSE_PASSWORD", login.password(),
            "CLICKHOUSE_DATABASE", "realtime",
            "CLICKHOUSE_TABLE", "logs",
            "PAYLOAD_FORMAT", "debezium",
            "CDC_TABLES", "public.logs=logs");

    Checked missing = check(asGrantsSqlUser);

    assertThat(missing.exitCode()).as(missing.out() + missing.err()).isEqualTo(1);
    assertThat(missing.out())
        .contains(
            "truncate marks table realtime._cdc_truncate_marks: the user lacks CREATE TABLE on it,"
                + " so the service cannot create it and stays unready")
        .contains(
            "truncates and snapshot ends delete from the targets and need GRANT ALTER DELETE ON"
                + " realtime.logs: without it the service stays unready");
  }
}
