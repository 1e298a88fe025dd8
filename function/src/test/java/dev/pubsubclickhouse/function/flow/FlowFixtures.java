package dev.pubsubclickhouse.function.flow;

/** Loads of a table whose parts limits are 10 (delay), 20 (throw) and 100,000 in total. */
final class TableLoads {
  private TableLoads() {}

  /** {@code parts} in its fullest partition, and in all. */
  static TableLoad parts(long parts) {
    return load(parts, 0, 0, 0);
  }

  /** As {@link #parts}, with these counts of blocks written and of INSERTs delayed and refused. */
  static TableLoad load(long parts, long blocks, long delayed, long rejected) {
    return TableLoad.builder()
        .partitionParts(parts)
        .activeParts(parts)
        .partsToDelayInsert(10)
        .partsToThrowInsert(20)
        .maxPartsInTotal(100_000)
        .blocksWritten(blocks)
        .delayedInserts(delayed)
        .rejectedInserts(rejected)
        .build();
  }
}
