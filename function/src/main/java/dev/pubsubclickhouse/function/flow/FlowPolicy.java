package dev.pubsubclickhouse.function.flow;

import java.time.Duration;

/**
 * How the fleet shares the target table.
 *
 * @param tableMaxInsertsPerSecond INSERTs (new parts) per second into the table from every instance
 *     together; each instance takes its share of it (0: no such ceiling)
 * @param watchInterval how often each instance reads the table's load from ClickHouse (zero: flow
 *     control off)
 */
public record FlowPolicy(int tableMaxInsertsPerSecond, Duration watchInterval) {
  public boolean enabled() {
    return !watchInterval.isZero();
  }
}
