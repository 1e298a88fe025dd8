package dev.pubsubclickhouse.core.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Environment variables that look like a misspelt parameter: not a parameter of the program, but
 * within two edits of one ({@code CLICKHOUSE_TABEL} for {@code CLICKHOUSE_TABLE}). A program warns
 * of them at start, since a misspelt variable is otherwise silently ignored and its default used.
 * Other tools' variables are never named: Google's and the JVM's, the OpenTelemetry SDK's, the
 * Pub/Sub emulator's, Cloud Run's, and the shell's; nor is a variable of the push service, whose
 * settings the backfill and replay often run beside ({@code CLICKHOUSE_TABLES} is not a misspelt
 * {@code CLICKHOUSE_TABLE}).
 */
public final class MisspeltVariables {
  /** Shorter names (PORT, PATH, HOME) are too close to each other to tell a typo. */
  private static final int SHORTEST_NAME = 8;

  private static final List<String> OTHER_TOOLS_PREFIXES =
      List.of(
          "OTEL_",
          "GOOGLE_",
          "GCLOUD_",
          "CLOUDSDK_",
          "PUBSUB_EMULATOR_",
          "K_",
          "CLOUD_RUN_",
          "JAVA_",
          "JDK_",
          "MAVEN_",
          "KUBERNETES_",
          "LC_",
          "XDG_",
          "SSL_",
          "GRPC_");

  private MisspeltVariables() {}

  /** One line per suspect variable, naming the parameter it is close to; sorted, empty if none. */
  public static List<String> in(Map<String, String> environment, Collection<Parameter> parameters) {
    Set<String> names = new TreeSet<>();
    parameters.forEach(parameter -> names.add(parameter.env()));
    List<String> warnings = new ArrayList<>();
    for (String variable : new TreeSet<>(environment.keySet())) {
      if (names.contains(variable)
          || PushServiceVariables.NAMES.contains(variable)
          || variable.length() < SHORTEST_NAME
          || ofAnotherTool(variable)) {
        continue;
      }
      for (String name : names) {
        if (name.length() >= SHORTEST_NAME && withinTwoEdits(variable, name)) {
          warnings.add(variable + " is not a parameter; did you mean " + name + "?");
          break;
        }
      }
    }
    return warnings;
  }

  private static boolean ofAnotherTool(String variable) {
    return OTHER_TOOLS_PREFIXES.stream().anyMatch(variable::startsWith);
  }

  /**
   * Edit distance, an adjacent swap counting as one edit (optimal string alignment), of two at
   * most.
   */
  static boolean withinTwoEdits(String a, String b) {
    if (Math.abs(a.length() - b.length()) > 2) {
      return false;
    }
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()] <= 2;
  }
}
