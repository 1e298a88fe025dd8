package dev.pubsubclickhouse.backfill.source;

import com.google.cloud.bigquery.TableId;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A BigQuery table as the templates write it: {@code project:dataset.table}, {@code
 * project.dataset.table}, or {@code dataset.table} in the default project.
 */
public final class TableSpec {
  // Project ids may be domain-scoped ("example.com:proj"), so the colon form splits at the last
  // ':'.
  private static final Pattern COLON = Pattern.compile("(.+):([\\w]+)\\.([^.:]+)");
  private static final Pattern DOTS = Pattern.compile("([a-z][a-z0-9-]*)\\.(\\w+)\\.([^.:]+)");
  private static final Pattern SHORT = Pattern.compile("(\\w+)\\.([^.:]+)");

  private TableSpec() {}

  /**
   * @throws IllegalArgumentException naming the accepted forms
   */
  public static TableId parse(String spec, Optional<String> defaultProject) {
    String text = spec.trim();
    Matcher m = COLON.matcher(text);
    if (m.matches()) {
      return TableId.of(m.group(1), m.group(2), m.group(3));
    }
    m = DOTS.matcher(text);
    if (m.matches()) {
      return TableId.of(m.group(1), m.group(2), m.group(3));
    }
    m = SHORT.matcher(text);
    if (m.matches() && defaultProject.isPresent()) {
      return TableId.of(defaultProject.get(), m.group(1), m.group(2));
    }
    throw new IllegalArgumentException(
        "expected project:dataset.table or project.dataset.table, got '" + text + "'");
  }

  /** {@code project:dataset.table}, the form the templates print. */
  public static String format(TableId table) {
    return table.getProject() + ":" + table.getDataset() + "." + table.getTable();
  }
}
