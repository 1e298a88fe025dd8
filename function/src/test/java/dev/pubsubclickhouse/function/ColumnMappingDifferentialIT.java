package dev.pubsubclickhouse.function;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pubsubclickhouse.testing.ClickHouseTest;
import dev.pubsubclickhouse.testing.TestDatabase;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The differential fuzz of COLUMN_MAPPING: random JSON documents over a small alphabet of keys
 * (ones that hold '.', '[', '"', ',', '=', a space, none at all) pushed to the real service, whose
 * table maps random paths into {@code Nullable(String)} columns and the data itself into {@code
 * doc} ({@code $data}). The oracle is ClickHouse extracting the same path from the stored text:
 * where it finds a value (not null) the column holds it (a string's text; for any other value its
 * JSON, which both sides' texts are read back through ClickHouse's JSON reader to compare), and
 * where it finds none the column is NULL. ClickHouse counts indices from 1, and takes an index into
 * an object as the object's n-th field, where a path takes nothing: an index step is checked to
 * stand on an array.
 *
 * <p>{@code -Dmapping.fuzz.seed=N} replays a run; {@code -Dmapping.fuzz.documents=N} sets how many
 * documents it pushes (1,200 by default).
 */
@ClickHouseTest
class ColumnMappingDifferentialIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> KEYS =
      List.of("a", "b", "c", "a.b", "x[0]", "q\"t", "", "é", "sp ace", "c,d", "e=f");
  private static final Pattern BARE = Pattern.compile("[A-Za-z0-9_é]+");
  private static final List<String> STRINGS =
      List.of(
          "",
          "plain",
          "with \"quote\"",
          "back\\slash",
          "tab\there",
          "line\nbreak",
          "é€😀",
          "\u0001ctl",
          "12",
          "{\"not\":\"an object\"}",
          "null");
  private static final List<String> NUMBERS =
      List.of(
          "0",
          "-0",
          "7",
          "-12",
          "9223372036854775807",
          "18446744073709551615",
          "1.5",
          "-0.25",
          "1e3",
          "2.5E-3",
          "-0.0",
          "123456789.123456789");
  private static final int COLUMNS = 6;
  private static final int DOCUMENTS_PER_TABLE = 300;
  private static final int IN_FLIGHT = 16;

  private final TestDatabase database;
  private final List<String> mismatches = new ArrayList<>();
  private final Map<String, Integer> kinds = new TreeMap<>();
  private long checked;

  ColumnMappingDifferentialIT(TestDatabase database) {
    this.database = database;
  }

  /** A path as the mapping writes it, and as ClickHouse's JSON functions take it. */
  private record Path(String text, List<String> arguments, List<Integer> indexSteps) {}

  @Test
  void everyMappedColumnHoldsWhatClickHouseExtractsFromTheSameText() throws Exception {
    long seed = Long.getLong("mapping.fuzz.seed", 20_261_205L);
    int documents = Integer.getInteger("mapping.fuzz.documents", 1_200);
    Random random = new Random(seed);
    long started = System.nanoTime();
    int tables = 0;
    for (int done = 0; done < documents && mismatches.size() < 100; done += DOCUMENTS_PER_TABLE) {
      fuzzTable("m" + tables++, random, Math.min(DOCUMENTS_PER_TABLE, documents - done));
    }
    System.out.printf(
        Locale.ROOT,
        "RESULT mapping fuzz: seed=%d tables=%d values=%d seconds=%.1f kinds=%s%n",
        seed,
        tables,
        checked,
        (System.nanoTime() - started) / 1e9,
        kinds);
    assertThat(mismatches)
        .as(
            "seed %d (-Dmapping.fuzz.seed=%d): %d mismatches, the first 30:%n%s",
            seed,
            seed,
            mismatches.size(),
            String.join("\n\n", mismatches.subList(0, Math.min(30, mismatches.size()))))
        .isEmpty();
    assertThat(checked).isGreaterThanOrEqualTo((long) documents * (COLUMNS + 1));
    for (String kind : List.of("missing", "Null", "String", "Int64", "Double", "Bool", "Object")) {
      assertThat(kinds.getOrDefault(kind, 0)).as("values of kind %s", kind).isGreaterThan(20);
    }
    assertThat(kinds.getOrDefault("Array", 0) + kinds.getOrDefault("UInt64", 0))
        .as("arrays and large integers")
        .isGreaterThan(20);
  }

  private void fuzzTable(String table, Random random, int documents) throws Exception {
    List<Path> paths = new ArrayList<>();
    StringBuilder mapping = new StringBuilder("doc=$data");
    StringBuilder columns = new StringBuilder("id UInt32, doc String");
    for (int i = 0; i < COLUMNS; i++) {
      Path path = path(random);
      paths.add(path);
      mapping.append(",p").append(i).append('=').append(path.text());
      columns.append(", p").append(i).append(" Nullable(String)");
    }
    database.execute("CREATE TABLE " + table + " (" + columns + ") ENGINE = Memory");
    Map<Integer, String> sent = new LinkedHashMap<>();
    for (int id = 0; id < documents; id++) {
      sent.put(id, document(id, random));
    }
    push(table, mapping.toString(), sent);

    StringBuilder select = new StringBuilder("SELECT id, hex(doc)");
    for (int i = 0; i < COLUMNS; i++) {
      select.append(", ").append(ok("p" + i, paths.get(i)));
      select.append(", ").append(kind(paths.get(i)));
    }
    select.append(" FROM ").append(table).append(" ORDER BY id");
    Map<Integer, String[]> stored = new HashMap<>();
    for (String line : database.query(select.toString()).split("\n")) {
      if (!line.isEmpty()) {
        String[] fields = line.split("\t", -1);
        stored.put(Integer.parseInt(fields[0]), fields);
      }
    }
    for (Map.Entry<Integer, String> document : sent.entrySet()) {
      String[] row = stored.get(document.getKey());
      String where = table + " mapping " + mapping + "\n  document " + document.getValue();
      if (row == null) {
        mismatches.add(where + "\n  not stored");
        continue;
      }
      String doc =
          new String(HexFormat.of().parseHex(row[1]), java.nio.charset.StandardCharsets.UTF_8);
      if (doc.equals(document.getValue())) {
        checked++;
      } else {
        mismatches.add(where + "\n  $data stored as " + doc);
      }
      for (int i = 0; i < COLUMNS; i++) {
        kinds.merge(row[3 + 2 * i], 1, Integer::sum);
        if (row[2 + 2 * i].equals("1")) {
          checked++;
        } else {
          mismatches.add(
              where
                  + "\n  p"
                  + i
                  + "="
                  + paths.get(i).text()
                  + ": "
                  + detail(table, document.getKey(), "p" + i, paths.get(i)));
        }
      }
    }
  }

  /** The column agrees with ClickHouse's extraction from the stored text: 1 or 0. */
  private static String ok(String column, Path path) {
    String at = "doc, " + String.join(", ", path.arguments());
    String found = found(path);
    String value =
        "if(JSONType("
            + at
            + ") = 'String', "
            + column
            + " = JSONExtractString("
            + at
            + "), JSONExtractRaw(concat('{\"v\":', "
            + column
            + ", '}'), 'v') = JSONExtractRaw("
            + at
            + "))";
    return "toUInt8(if(isNull("
        + column
        + "), NOT ("
        + found
        + "), ("
        + found
        + ") AND ifNull("
        + value
        + ", 0)))";
  }

  /** ClickHouse finds a value that is not null at the path, every index step on an array. */
  private static String found(Path path) {
    StringBuilder found =
        new StringBuilder("JSONHas(doc, " + String.join(", ", path.arguments()) + ")");
    found.append(" AND JSONType(doc, ").append(String.join(", ", path.arguments()));
    found.append(") != 'Null'");
    for (int step : path.indexSteps()) {
      found.append(" AND JSONType(doc, ");
      found.append(String.join(", ", path.arguments().subList(0, step)));
      found.append(") = 'Array'");
    }
    return found.toString();
  }

  /** What ClickHouse finds at the path, by kind, for the coverage the test asserts. */
  private static String kind(Path path) {
    return "if("
        + found(path)
        + ", toString(JSONType(doc, "
        + String.join(", ", path.arguments())
        + ")), if(JSONHas(doc, "
        + String.join(", ", path.arguments())
        + ") AND JSONType(doc, "
        + String.join(", ", path.arguments())
        + ") = 'Null', 'Null', 'missing'))";
  }

  private String detail(String table, int id, String column, Path path) {
    String at = "doc, " + String.join(", ", path.arguments());
    return database.query(
        "SELECT ifNull("
            + column
            + ", 'NULL'), JSONHas("
            + at
            + "), JSONType("
            + at
            + "), JSONExtractRaw("
            + at
            + ") FROM "
            + table
            + " WHERE id = "
            + id);
  }

  private void push(String table, String mapping, Map<Integer, String> documents) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(IN_FLIGHT);
    try (RunningService service =
        RunningService.start(
            database, table, Map.of("COLUMN_MAPPING", mapping, "BATCH_LINGER_MS", "5"))) {
      List<Future<Integer>> statuses = new ArrayList<>();
      for (Map.Entry<Integer, String> document : documents.entrySet()) {
        statuses.add(
            pool.submit(() -> service.push(table + "-" + document.getKey(), document.getValue())));
      }
      for (int i = 0; i < statuses.size(); i++) {
        assertThat(statuses.get(i).get()).as("answer to document %d", i).isEqualTo(204);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static Path path(Random random) {
    StringBuilder text = new StringBuilder();
    List<String> arguments = new ArrayList<>();
    List<Integer> indexSteps = new ArrayList<>();
    int steps = 1 + random.nextInt(3);
    for (int step = 0; step < steps; step++) {
      if (step > 0 && random.nextDouble() < 0.35) {
        int index = random.nextInt(3);
        text.append('[').append(index).append(']');
        indexSteps.add(arguments.size());
        arguments.add(Integer.toString(index + 1));
      } else {
        String key = KEYS.get(random.nextInt(KEYS.size()));
        if (step > 0) {
          text.append('.');
        }
        text.append(
            BARE.matcher(key).matches()
                ? key
                : '"' + key.replace("\\", "\\\\").replace("\"", "\\\"") + '"');
        arguments.add("'" + key.replace("\\", "\\\\").replace("'", "\\'") + "'");
      }
    }
    return new Path(text.toString(), arguments, indexSteps);
  }

  private static String document(int id, Random random) {
    StringBuilder text = new StringBuilder("{\"id\":").append(id);
    for (String key : keys(random, 5 + random.nextInt(7))) {
      text.append(',').append(quoted(key)).append(':');
      value(text, random, 1);
    }
    return text.append('}').toString();
  }

  private static void value(StringBuilder text, Random random, int depth) {
    double pick = random.nextDouble();
    if (depth < 4 && pick < 0.35) {
      text.append('{');
      boolean first = true;
      for (String key : keys(random, random.nextInt(8))) {
        text.append(first ? "" : ",").append(quoted(key)).append(':');
        value(text, random, depth + 1);
        first = false;
      }
      text.append('}');
    } else if (depth < 4 && pick < 0.55) {
      text.append('[');
      for (int i = random.nextInt(4); i > 0; i--) {
        value(text, random, depth + 1);
        text.append(i > 1 ? "," : "");
      }
      text.append(']');
    } else {
      double scalar = random.nextDouble();
      if (scalar < 0.4) {
        text.append(quoted(STRINGS.get(random.nextInt(STRINGS.size()))));
      } else if (scalar < 0.75) {
        text.append(NUMBERS.get(random.nextInt(NUMBERS.size())));
      } else if (scalar < 0.88) {
        text.append(random.nextBoolean());
      } else {
        text.append("null");
      }
    }
  }

  private static List<String> keys(Random random, int count) {
    List<String> keys = new ArrayList<>(KEYS);
    java.util.Collections.shuffle(keys, random);
    return keys.subList(0, Math.min(count, keys.size()));
  }

  private static String quoted(String text) {
    try {
      return JSON.writeValueAsString(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
