package dev.pubsubclickhouse.backfill;

import dev.pubsubclickhouse.backfill.BackfillConfig.PageReaderKind;
import java.util.Optional;

/**
 * How rows are read.
 *
 * @param storageEndpoint a plaintext {@code host:port} for the Storage Read API, if overridden
 * @param rowRestriction the SQL condition rows must match, if any
 */
public record ReadOptions(
    PageReaderKind reader,
    Optional<String> storageEndpoint,
    int streamsPerTask,
    int bigQueryMaxAttempts,
    Optional<String> rowRestriction,
    int pageRows,
    int prefetchPages) {

  public static Builder builder() {
    return new Builder();
  }

  /** Builds read options by name; what is not set is empty or zero, the reader STORAGE. */
  public static final class Builder {
    private PageReaderKind reader = PageReaderKind.STORAGE;
    private Optional<String> storageEndpoint = Optional.empty();
    private int streamsPerTask;
    private int bigQueryMaxAttempts;
    private Optional<String> rowRestriction = Optional.empty();
    private int pageRows;
    private int prefetchPages;

    private Builder() {}

    public Builder reader(PageReaderKind value) {
      reader = value;
      return this;
    }

    public Builder storageEndpoint(Optional<String> value) {
      storageEndpoint = value;
      return this;
    }

    public Builder streamsPerTask(int value) {
      streamsPerTask = value;
      return this;
    }

    public Builder bigQueryMaxAttempts(int value) {
      bigQueryMaxAttempts = value;
      return this;
    }

    public Builder rowRestriction(Optional<String> value) {
      rowRestriction = value;
      return this;
    }

    public Builder pageRows(int value) {
      pageRows = value;
      return this;
    }

    public Builder prefetchPages(int value) {
      prefetchPages = value;
      return this;
    }

    public ReadOptions build() {
      return new ReadOptions(
          reader,
          storageEndpoint,
          streamsPerTask,
          bigQueryMaxAttempts,
          rowRestriction,
          pageRows,
          prefetchPages);
    }
  }
}
