package dev.pubsubclickhouse.function.flow;

/**
 * What ClickHouse says about the target table at one moment.
 *
 * @param partitionParts active parts in the table's fullest partition
 * @param activeParts active parts in the whole table
 * @param partsToDelayInsert the table's {@code parts_to_delay_insert} (0: none): beyond it
 *     ClickHouse slows every INSERT into a partition
 * @param partsToThrowInsert the table's {@code parts_to_throw_insert} (0: none): beyond it
 *     ClickHouse refuses INSERTs with code 252, "too many parts"
 * @param maxPartsInTotal the table's {@code max_parts_in_total} (0: none): the same for the whole
 *     table
 * @param blocksWritten a counter that grows by one for every block (part) an INSERT writes into the
 *     table, from every writer: the table's block numbers
 * @param merges merges of the table in progress
 * @param delayedInserts the server's {@code DelayedInserts} counter (every table)
 * @param rejectedInserts the server's {@code RejectedInserts} counter (every table)
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
}
