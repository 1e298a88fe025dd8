package dev.pubsubclickhouse.backfill.source;

/** The BigQuery source cannot be read: one line saying why. */
public class SourceException extends RuntimeException {
  public SourceException(String message) {
    super(message);
  }
}
