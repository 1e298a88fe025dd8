package dev.pubsubclickhouse.function.flow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class TableLoadTest {
  private static TableLoad load(long partition, long total, long delay, long toThrow, long max) {
    return TableLoad.builder()
        .partitionParts(partition)
        .activeParts(total)
        .partsToDelayInsert(delay)
        .partsToThrowInsert(toThrow)
        .maxPartsInTotal(max)
        .build();
  }

  @Test
  void pressureIsTheFullestPartitionAgainstTheLowerOfItsLimits() {
    assertThat(load(300, 300, 1000, 3000, 100_000).pressure()).isCloseTo(0.3, within(1e-9));
    // a table set to refuse before it delays
    assertThat(load(30, 30, 1000, 60, 100_000).pressure()).isCloseTo(0.5, within(1e-9));
    // 0 means no such limit
    assertThat(load(30, 30, 0, 60, 0).pressure()).isCloseTo(0.5, within(1e-9));
  }

  @Test
  void orTheWholeTableAgainstMaxPartsInTotalWhicheverIsNearer() {
    assertThat(load(10, 900, 1000, 3000, 1000).pressure()).isCloseTo(0.9, within(1e-9));
    assertThat(load(10, 900, 0, 0, 0).pressure()).isZero();
  }

  @Test
  void theTablesOwnSettingsComeBeforeTheServers() {
    String engine =
        "MergeTree ORDER BY n SETTINGS inactive_parts_to_delay_insert = 7,"
            + " parts_to_delay_insert = 10, parts_to_throw_insert = 20, index_granularity = 8192";
    assertThat(TableLoadReader.setting(engine, "parts_to_delay_insert", 1000)).isEqualTo(10);
    assertThat(TableLoadReader.setting(engine, "parts_to_throw_insert", 3000)).isEqualTo(20);
    assertThat(TableLoadReader.setting(engine, "max_parts_in_total", 100_000)).isEqualTo(100_000);
    assertThat(TableLoadReader.setting("MergeTree ORDER BY n", "parts_to_delay_insert", 1000))
        .isEqualTo(1000);
  }
}
