package dev.pubsubclickhouse.core.config;

/** A value that must not be printed: {@link #toString()} never shows it. */
public final class Secret {
  private static final Secret EMPTY = new Secret("");
  private final String value;

  private Secret(String value) {
    this.value = value;
  }

  public static Secret of(String value) {
    return value == null || value.isEmpty() ? EMPTY : new Secret(value);
  }

  public static Secret empty() {
    return EMPTY;
  }

  /** The value, for the one place that hands it to a client library. */
  public String reveal() {
    return value;
  }

  public boolean isEmpty() {
    return value.isEmpty();
  }

  @Override
  public String toString() {
    return value.isEmpty() ? "(none)" : "(secret)";
  }
}
