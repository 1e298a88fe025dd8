package dev.pubsubclickhouse.function.flow;

/**
 * What ClickHouse says about the target table at one moment. Built with {@link #builder()}.
 *
 * @param partitionParts active parts in the table's fullest partition
 * @param activeParts active parts in the whole table
 * @param partsToDelayInsert the table's {@code parts_to_delay_insert}, or 0 for none. Beyond it
 *     ClickHouse slows every INSERT into a partition.
 * @param partsToThrowInsert the table's {@code parts_to_throw_insert}, or 0 for none. Beyond it
 *     ClickHouse refuses INSERTs into a partition with code 252, "too many parts".
 * @param maxPartsInTotal the table's {@code max_parts_in_total}, or 0 for none. Beyond it
 *     ClickHouse refuses INSERTs into the whole table.
 * @param blocksWritten the table's block numbers: a counter that grows by one for every block
 *     (part) an INSERT writes into the table, whoever writes it
 * @param merges merges of the table in progress
 * @param delayedInserts the server's {@code DelayedInserts} counter, for every table
 * @param rejectedInserts the server's {@code RejectedInserts} counter, for every table
 */
public record TableLoad(
    long partitionParts,
    long activeParts,
    long partsToDelayInsert,
    long partsToThrowInsert,
    long maxPartsInTotal,
    long blocksWritten,
    long merges,
    long delayedInserts,
    long rejectedInserts) {

  /** Builds a {@link TableLoad}; what is not set is 0 (no parts, no limit, no counts). */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * How close the table is to ClickHouse's limits: the fullest partition against the lower of
   * {@code parts_to_delay_insert} and {@code parts_to_throw_insert}, the whole table against {@code
   * max_parts_in_total}, whichever is nearer. 1.0 is where ClickHouse starts to slow INSERTs down.
   */
  public double pressure() {
    long partitionLimit = lowerLimit(partsToDelayInsert, partsToThrowInsert);
    double pressure = 0;
    if (partitionLimit > 0) {
      pressure = (double) partitionParts / partitionLimit;
    }
    if (maxPartsInTotal > 0) {
      pressure = Math.max(pressure, (double) activeParts / maxPartsInTotal);
    }
    return pressure;
  }

  private static long lowerLimit(long a, long b) {
    if (a <= 0) {
      return Math.max(b, 0);
    }
    return b <= 0 ? a : Math.min(a, b);
  }

  /** Names each part of a {@link TableLoad}. */
  public static final class Builder {
    private long partitionParts;
    private long activeParts;
    private long partsToDelayInsert;
    private long partsToThrowInsert;
    private long maxPartsInTotal;
    private long blocksWritten;
    private long merges;
    private long delayedInserts;
    private long rejectedInserts;

    private Builder() {}

    public Builder partitionParts(long partitionParts) {
      this.partitionParts = partitionParts;
      return this;
    }

    public Builder activeParts(long activeParts) {
      this.activeParts = activeParts;
      return this;
    }

    public Builder partsToDelayInsert(long partsToDelayInsert) {
      this.partsToDelayInsert = partsToDelayInsert;
      return this;
    }

    public Builder partsToThrowInsert(long partsToThrowInsert) {
      this.partsToThrowInsert = partsToThrowInsert;
      return this;
    }

    public Builder maxPartsInTotal(long maxPartsInTotal) {
      this.maxPartsInTotal = maxPartsInTotal;
      return this;
    }

    public Builder blocksWritten(long blocksWritten) {
      this.blocksWritten = blocksWritten;
      return this;
    }

    public Builder merges(long merges) {
      this.merges = merges;
      return this;
    }

    public Builder delayedInserts(long delayedInserts) {
      this.delayedInserts = delayedInserts;
      return this;
    }

    public Builder rejectedInserts(long rejectedInserts) {
      this.rejectedInserts = rejectedInserts;
      return this;
    }

    public TableLoad build() {
      return new TableLoad(
          partitionParts,
          activeParts,
          partsToDelayInsert,
          partsToThrowInsert,
          maxPartsInTotal,
          blocksWritten,
          merges,
          delayedInserts,
          rejectedInserts);
    }
  }
}
