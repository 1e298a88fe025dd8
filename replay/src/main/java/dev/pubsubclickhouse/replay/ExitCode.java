package dev.pubsubclickhouse.replay;

/** What {@code replay.jar} exits with; the README lists them. */
public final class ExitCode {
  private ExitCode() {}

  /** Every dead letter selected was replayed, or none matched. */
  public static final int DONE = 0;

  /**
   * Stopped by a failure (ClickHouse, Pub/Sub, the topic): what was not replayed is where it was.
   */
  public static final int FAILED = 1;

  /** A wrong flag or setting, named on one line; nothing was read. */
  public static final int USAGE = 2;

  /** Done, but some dead letters still do not fit: they stay, with the new reason. */
  public static final int SOME_STAY = 3;
}
