package dev.pubsubclickhouse.testing.values;

import dev.pubsubclickhouse.testing.values.TwinTable.Column;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One seeded run of the value fuzz: the random source every draw of the run takes from (so a seed
 * replays the run), the generators of column types and values that draw on it, and the rules that
 * judge the values.
 */
public record ValueFuzz(
    Random random, TypeGenerator types, ValueGenerator values, ValueRules rules) {

  public static ValueFuzz seeded(long seed) {
    Random random = new Random(seed);
    return new ValueFuzz(
        random, new TypeGenerator(random), new ValueGenerator(random), new ValueRules());
  }

  /** A random table's columns c0, c1, ...: between 2 and {@code most} of them, of random types. */
  public List<Column> columns(int most) {
    List<Column> columns = new ArrayList<>();
    for (int i = 2 + random.nextInt(most - 1); i > 0; i--) {
      columns.add(new Column("c" + columns.size(), types.column()));
    }
    return columns;
  }
}
