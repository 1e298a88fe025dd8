package dev.pubsubclickhouse.backfill;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The Dataflow template's {@code jdbcUrl} ({@code jdbc:clickhouse://host:port/db?ssl=true}) read as
 * what this job needs: the HTTP(S) endpoint and the database. Credentials never belong in it.
 *
 * @param database the path's database, or empty when the URL names none
 * @param ignoredOptions option names (never values) that have no meaning over HTTP here
 */
public record JdbcUrl(URI endpoint, Optional<String> database, List<String> ignoredOptions) {
  private static final List<String> PREFIXES =
      List.of("jdbc:clickhouse:", "jdbc:ch:", "clickhouse:", "ch:");

  /**
   * @throws IllegalArgumentException with a message that never repeats the URL (it may hold a
   *     password)
   */
  public static JdbcUrl parse(String text) {
    String rest = null;
    for (String prefix : PREFIXES) {
      if (text.regionMatches(true, 0, prefix, 0, prefix.length())) {
        rest = text.substring(prefix.length());
        break;
      }
    }
    if (rest == null) {
      throw new IllegalArgumentException("expected jdbc:clickhouse://host:port/database");
    }
    String scheme = null;
    if (rest.startsWith("http://") || rest.startsWith("https://")) {
      scheme = rest.substring(0, rest.indexOf(':'));
      rest = rest.substring(scheme.length() + 1);
    }
    if (!rest.startsWith("//")) {
      throw new IllegalArgumentException("expected jdbc:clickhouse://host:port/database");
    }
    URI uri;
    try {
      uri = URI.create("http:" + rest);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("not a valid URL after jdbc:clickhouse:");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException("no host in jdbc:clickhouse://host:port/database");
    }
    if (uri.getUserInfo() != null) {
      throw new IllegalArgumentException(
          "must not hold credentials; use clickHouseUsername and clickHousePassword");
    }
    boolean ssl = "https".equals(scheme);
    List<String> ignored = new ArrayList<>();
    if (uri.getRawQuery() != null) {
      for (String option : uri.getRawQuery().split("&")) {
        if (option.isEmpty()) {
          continue;
        }
        int equals = option.indexOf('=');
        String name = (equals < 0 ? option : option.substring(0, equals)).trim();
        String value = equals < 0 ? "true" : option.substring(equals + 1).trim();
        switch (name.toLowerCase(Locale.ROOT)) {
          case "ssl" -> ssl |= "true".equalsIgnoreCase(value) || "1".equals(value);
          case "user", "username", "password" ->
              throw new IllegalArgumentException(
                  "must not hold credentials; use clickHouseUsername and clickHousePassword");
          default -> ignored.add(name);
        }
      }
    }
    int port = uri.getPort() > 0 ? uri.getPort() : ssl ? 8443 : 8123;
    URI endpoint = URI.create((ssl ? "https" : "http") + "://" + uri.getHost() + ":" + port);
    String path = uri.getPath() == null ? "" : uri.getPath().replaceAll("^/+|/+$", "");
    return new JdbcUrl(
        endpoint, path.isEmpty() ? Optional.empty() : Optional.of(path), List.copyOf(ignored));
  }
}
