package dev.pubsubclickhouse.replay;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** The options both replay commands take: which dead letters, how fast, and whether for real. */
public final class CommonOptions {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help.")
  boolean help;

  @Option(
      names = "--verbose",
      description =
          "Also log the ClickHouse client's retries and the stack trace of a failure (for a bug"
              + " report); without it a failure is one line.")
  boolean verbose;

  @Option(
      names = "--dryRun",
      description =
          "Say what would be replayed and what would still not fit; write, publish and acknowledge"
              + " nothing.")
  boolean dryRun;

  @Option(
      names = "--failedAfter",
      paramLabel = "TIME",
      converter = TimeConverter.class,
      description = "Only dead letters that failed at or after TIME (ISO-8601, UTC by default).")
  Instant failedAfter;

  @Option(
      names = "--failedBefore",
      paramLabel = "TIME",
      converter = TimeConverter.class,
      description = "Only dead letters that failed before TIME.")
  Instant failedBefore;

  @Option(
      names = "--errorContains",
      paramLabel = "TEXT",
      description = "Only dead letters whose reason contains TEXT (case-sensitive).")
  String errorContains;

  @Option(
      names = "--messageId",
      paramLabel = "ID",
      split = ",",
      description = "Only these message ids (repeat the flag or separate by commas).")
  List<String> messageIds;

  @Option(
      names = "--maxPerSecond",
      paramLabel = "N",
      defaultValue = "500",
      description = "At most N messages a second (0: no limit). Default: ${DEFAULT-VALUE}.")
  double maxPerSecond;

  @Option(
      names = "--limit",
      paramLabel = "N",
      description = "Stop after N messages (the rest stay for a later run).")
  Long limit;

  public boolean dryRun() {
    return dryRun;
  }

  public boolean verbose() {
    return verbose;
  }

  /**
   * @throws IllegalArgumentException when the options contradict each other
   */
  public DeadLetterFilter filter() {
    List<String> ids =
        messageIds == null
            ? List.of()
            : messageIds.stream().map(String::trim).filter(id -> !id.isEmpty()).toList();
    return new DeadLetterFilter(
        Optional.ofNullable(failedAfter),
        Optional.ofNullable(failedBefore),
        Optional.ofNullable(errorContains).filter(text -> !text.isEmpty()),
        Set.copyOf(ids));
  }

  /**
   * @throws IllegalArgumentException for a negative rate
   */
  public RateLimit rateLimit() {
    if (maxPerSecond < 0 || Double.isNaN(maxPerSecond) || Double.isInfinite(maxPerSecond)) {
      throw new IllegalArgumentException("--maxPerSecond must be 0 (no limit) or more");
    }
    return RateLimit.perSecond(maxPerSecond);
  }

  /** How many messages at most; {@link Long#MAX_VALUE} without --limit. */
  public long limit() {
    if (limit != null && limit < 1) {
      throw new IllegalArgumentException("--limit must be 1 or more");
    }
    return limit == null ? Long.MAX_VALUE : limit;
  }

  /** Reads a time option. */
  public static final class TimeConverter implements ITypeConverter<Instant> {
    @Override
    public Instant convert(String value) {
      try {
        return Times.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
