package dev.pubsubclickhouse.function.flow;

import dev.pubsubclickhouse.core.schema.TableName;
import dev.pubsubclickhouse.function.observability.Metrics;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * What the flow control tests share: a table's load against parts limits of 10 (delay), 20 (throw)
 * and 100,000 in total, and a gate.
 */
final class FlowFixtures {
  private FlowFixtures() {}

  /**
   * A gate for 500 INSERTs a second at most, with no table share and a pace of at most 10 s, that
   * reads its table every {@code watchInterval}.
   */
  static FlowGate gate(
      TableName table, Supplier<TableLoad> reader, Metrics metrics, Duration watchInterval) {
    return new FlowGate(
        table,
        new FlowControl(500, 0, 10_000_000_000L),
        reader,
        metrics,
        new FlowPolicy(0, watchInterval));
  }

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
