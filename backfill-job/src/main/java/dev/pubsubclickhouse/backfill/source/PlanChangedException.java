package dev.pubsubclickhouse.backfill.source;

/**
 * This task's parameters, or what it finds in BigQuery, no longer match the plan its execution
 * pinned: reading on would skip or repeat rows, so the task fails.
 */
public final class PlanChangedException extends SourceException {
  public PlanChangedException(String message) {
    super(message);
  }
}
