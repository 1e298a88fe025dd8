package dev.pubsubclickhouse.function;

import com.clickhouse.client.api.Client;
import dev.pubsubclickhouse.core.config.ClickHouseConfig;
import dev.pubsubclickhouse.core.config.ConfigurationException;
import dev.pubsubclickhouse.core.config.MisspeltVariables;
import dev.pubsubclickhouse.core.insert.ClickHouseClients;
import dev.pubsubclickhouse.core.insert.ClickHouseFailures;
import dev.pubsubclickhouse.core.insert.ClickHouseHttp;
import dev.pubsubclickhouse.core.insert.ClickHouseInserter;
import dev.pubsubclickhouse.core.insert.ClickHouseReasons;
import dev.pubsubclickhouse.core.insert.InsertFormat;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.schema.ColumnDefinition;
import dev.pubsubclickhouse.core.schema.ColumnPlanText;
import dev.pubsubclickhouse.core.schema.SchemaReader;
import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.core.schema.TableNotFoundException;
import dev.pubsubclickhouse.core.schema.TableSchema;
import dev.pubsubclickhouse.core.write.DeadLetterTable;
import dev.pubsubclickhouse.core.write.TargetTable;
import dev.pubsubclickhouse.messages.cdc.ChangeCapture;
import dev.pubsubclickhouse.messages.cdc.DeleteGrants;
import dev.pubsubclickhouse.messages.cdc.TruncateMarkTable;
import dev.pubsubclickhouse.messages.tables.MessageColumnPlan;
import dev.pubsubclickhouse.messages.tables.TableMapping;
import dev.pubsubclickhouse.messages.tables.UnknownFieldsColumn;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code java -jar function.jar --check}: with the configuration the service would serve with, asks
 * ClickHouse for every table the service would write (CLICKHOUSE_TABLE, each CLICKHOUSE_TABLES or
 * CDC_TABLES target, the dead-letter table, the truncate marks table), prints each one's column
 * plan, and says whether the service would serve. It writes and creates nothing.
 */
final class ServiceCheck {
  static final int WOULD_SERVE = 0;
  static final int WOULD_NOT_SERVE = 1;
  static final int CONFIGURATION_ERROR = 2;

  private static final Map<String, String> DEAD_LETTER_SOURCES =
      Map.of(
          DeadLetterTable.RAW_MESSAGE, "(the message's data)",
          DeadLetterTable.ERROR_MESSAGE, "(the reason)",
          DeadLetterTable.STACK_TRACE, "(where it failed)",
          DeadLetterTable.FAILED_AT, "(time of failure)",
          DeadLetterTable.MESSAGE_ID, "(messageId)",
          DeadLetterTable.PUBLISH_TIME, "(publishTime)",
          DeadLetterTable.ATTRIBUTES, "(attributes)",
          DeadLetterTable.ORDERING_KEY, "(orderingKey)",
          DeadLetterTable.SUBSCRIPTION, "(subscription)",
          DeadLetterTable.DELIVERY_ATTEMPT, "(deliveryAttempt)");

  private final PushConfig config;
  private final PrintStream out;
  private final List<String> problems = new ArrayList<>();
  private final int warnings;

  private ServiceCheck(PushConfig config, PrintStream out, int warnings) {
    this.config = config;
    this.out = out;
    this.warnings = warnings;
  }

  /**
   * Checks the service configured by {@code environment}: the plans on {@code out}, then whether it
   * would serve and, if not, every reason; a configuration error as one line on {@code err}. A
   * misspelt variable is logged as a warning, and the summary counts the warnings.
   *
   * @return {@link #WOULD_SERVE}, {@link #WOULD_NOT_SERVE} or {@link #CONFIGURATION_ERROR}
   */
  static int run(Map<String, String> environment, PrintStream out, PrintStream err) {
    List<String> misspelt = MisspeltVariables.in(environment, PushParameters.ALL);
    misspelt.forEach(warning -> JsonLog.warning(warning, Map.of()));
    PushConfig config;
    try {
      config = PushConfig.read(environment);
    } catch (ConfigurationException | IllegalStateException e) {
      err.println("pubsub-clickhouse: " + e.getMessage());
      return CONFIGURATION_ERROR;
    }
    JsonLog.neverPrint(config.clickHouse().password().reveal());
    ClickHouseHttp http;
    try {
      http = ClickHouseHttp.open(config.clickHouse(), "pubsub-clickhouse-check");
    } catch (RuntimeException e) {
      err.println("pubsub-clickhouse: " + e.getMessage());
      return CONFIGURATION_ERROR;
    }
    try (Client client =
        ClickHouseClients.open(config.clickHouse(), "pubsub-clickhouse-check", 2)) {
      return new ServiceCheck(config, out, misspelt.size()).check(client, http);
    }
  }

  private int check(Client client, ClickHouseHttp http) {
    ClickHouseConfig clickHouse = config.clickHouse();
    out.println("ClickHouse at " + clickHouse.url() + " as user " + clickHouse.user());
    SchemaReader reader = new SchemaReader(client);
    boolean answers = true;
    for (Map.Entry<TableName, String> table : tablesWritten().entrySet()) {
      if (!checkTable(reader, table.getKey(), table.getValue())) {
        answers = false;
        break;
      }
    }
    if (answers) {
      clickHouse.deadLetterTable().ifPresent(table -> checkDeadLetterTable(client, reader, table));
      config.tables().changeCapture().ifPresent(capture -> checkTruncateMarks(client, capture));
      checkSettings(client, http);
    }
    config
        .deadLetterTopic()
        .ifPresent(
            topic ->
                out.println(
                    "\nnot checked: the dead-letter topic "
                        + topic
                        + " (Pub/Sub is asked when the first message is dead-lettered)"));
    out.println();
    if (problems.isEmpty()) {
      String warned =
          warnings == 0
              ? ""
              : ", with " + warnings + (warnings == 1 ? " warning" : " warnings") + " above";
      out.println("would serve" + warned + ": every table answers and every column can be written");
      return WOULD_SERVE;
    }
    out.println("would not serve:");
    problems.forEach(problem -> out.println("  " + problem));
    return WOULD_NOT_SERVE;
  }

  /** Every table a message may be written to, with the setting that names it. */
  private Map<TableName, String> tablesWritten() {
    TableMapping mapping = config.tables();
    Map<TableName, String> tables = new LinkedHashMap<>();
    tables.put(mapping.defaultTable(), "CLICKHOUSE_TABLE");
    String routed = mapping.changeCapture().isPresent() ? "CDC_TABLES" : "CLICKHOUSE_TABLES";
    mapping.allowedTables().forEach(table -> tables.putIfAbsent(table, routed));
    return tables;
  }

  /** Prints the table's plan or names its problem; false when ClickHouse itself cannot be used. */
  private boolean checkTable(SchemaReader reader, TableName name, String setting) {
    TableMapping mapping = config.tables();
    TargetTable table;
    try {
      table = new TargetTable(name, reader);
      if (mapping.evolution().isPresent()) {
        mapping.checkEvolvable(table);
      }
      UnknownFieldsColumn.check(mapping, table);
    } catch (TableNotFoundException | IllegalArgumentException e) {
      problems.add(e.getMessage());
      out.println("\ntable " + name + " (" + setting + "): " + e.getMessage());
      return true;
    } catch (RuntimeException e) {
      problems.add(ClickHouseReasons.cannotUse(config.clickHouse().url(), e));
      return false;
    }
    out.println("\ntable " + name + " (" + setting + ")");
    out.print(
        ColumnPlanText.format(
            MessageColumnPlan.SOURCE_HEADING, MessageColumnPlan.of(table, mapping)));
    if (mapping.evolution().isPresent()) {
      out.println("a field no column takes gets a new column (SCHEMA_EVOLUTION=add_columns)");
    } else if (mapping.unknownFieldsColumn().isEmpty()) {
      out.println("fields no column takes are ignored");
    }
    return true;
  }

  private void checkTruncateMarks(Client client, ChangeCapture capture) {
    TableName name = capture.marksTable();
    String heading = "\ntruncate marks table " + name + " (CDC_TRUNCATE_MARKS_TABLE)";
    try {
      boolean exists = TruncateMarkTable.usable(client, name);
      out.println(heading + (exists ? ": readable" : ": missing; the service creates it at start"));
      missingMarksGrant(client, name, exists)
          .ifPresent(
              privilege -> {
                String problem =
                    "truncate marks table "
                        + name
                        + ": the user lacks "
                        + privilege
                        + " on it, so "
                        + (exists
                            ? "the service stays unready:"
                            : "the service cannot create it and stays unready; create it with"
                                + " sql/cdc/truncate_marks.sql, or")
                        + " GRANT "
                        + privilege
                        + " ON "
                        + name
                        + " (sql/grants.sql)";
                problems.add(problem);
                out.println("  " + problem);
              });
    } catch (Exception e) {
      String problem =
          "truncate marks table " + name + " cannot be read: " + ClickHouseFailures.describe(e);
      problems.add(problem);
      out.println(heading + ": " + problem);
    }
    checkDeleteGrants(client, capture);
  }

  /** What truncates and snapshot ends need to delete, as the service checks it at start. */
  private void checkDeleteGrants(Client client, ChangeCapture capture) {
    List<String> missing;
    try {
      missing = DeleteGrants.missing(client, capture);
    } catch (Exception e) {
      out.println(
          "  (the grants to delete from the targets could not be checked: "
              + ClickHouseFailures.describe(e)
              + ")");
      return;
    }
    for (String grant : missing) {
      String problem =
          "truncates and snapshot ends delete from the targets and need "
              + grant
              + ": without it the service stays unready";
      problems.add(problem);
      out.println("  " + problem);
    }
  }

  /** The privilege the marks need and the user lacks; empty too when the server cannot tell. */
  private Optional<String> missingMarksGrant(Client client, TableName name, boolean exists) {
    try {
      return TruncateMarkTable.missingGrant(client, name, exists);
    } catch (Exception e) {
      out.println("  (its grants could not be checked: " + ClickHouseFailures.describe(e) + ")");
      return Optional.empty();
    }
  }

  private void checkDeadLetterTable(Client client, SchemaReader reader, TableName name) {
    String heading = "\ndead-letter table " + name + " (CLICKHOUSE_DEAD_LETTER_TABLE)";
    TableSchema schema;
    try {
      schema = reader.read(name);
      // Only its columns are checked: no inserter, since nothing is written.
      DeadLetterTable.open(client, name, false, null);
    } catch (TableNotFoundException e) {
      if (config.clickHouse().createDeadLetterTable()) {
        out.println(heading + ": missing; the service creates it at start");
      } else {
        String problem =
            "dead-letter table "
                + name
                + " does not exist (create it, or set CREATE_DEAD_LETTER_TABLE=true)";
        problems.add(problem);
        out.println(heading + ": " + problem);
      }
      return;
    } catch (IllegalStateException e) {
      problems.add(e.getMessage());
      out.println(heading + ": " + e.getMessage());
      return;
    } catch (RuntimeException e) {
      problems.add(ClickHouseReasons.cannotUse(config.clickHouse().url(), e));
      return;
    }
    List<ColumnPlanText.Row> rows = new ArrayList<>();
    for (ColumnDefinition column : schema.columns()) {
      String source = DEAD_LETTER_SOURCES.get(column.name());
      String how =
          !column.defaultKind().insertable()
              ? column.defaultKind() + ", computed by ClickHouse"
              : source != null
                  ? "written with each dead letter"
                  : ColumnPlanText.whenAbsent(column).orElse("-");
      rows.add(
          new ColumnPlanText.Row(column.name(), column.type(), source == null ? "-" : source, how));
    }
    out.println(heading);
    out.print(ColumnPlanText.format("dead letter", rows));
  }

  /** CLICKHOUSE_SETTINGS: names the server knows, values it takes. */
  private void checkSettings(Client client, ClickHouseHttp http) {
    try {
      WritePath.checkPassedNamesAreSettings(
          client, config.clickHouse().insertOptions().extraSettings());
      WritePath.checkPassedSettings(
          new ClickHouseInserter(
              http, InsertFormat.supportedBy(client), config.clickHouse().insertOptions()));
    } catch (ConfigurationException e) {
      problems.add(e.getMessage());
    } catch (RuntimeException e) {
      problems.add(ClickHouseReasons.cannotUse(config.clickHouse().url(), e));
    }
  }
}
