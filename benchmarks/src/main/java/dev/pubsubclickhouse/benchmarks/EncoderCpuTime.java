package dev.pubsubclickhouse.benchmarks;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/**
 * The process's CPU time per row of {@link EncoderBenchmark}'s seed row and 20-column row, for
 * comparing two builds of the encoder on a machine others are using too. JMH's throughput counts
 * wall time, so a build that was descheduled more looks slower; CPU time does not include the time
 * it waited for a core. The whole process's time is counted, so that the garbage collector's work
 * for what a build allocates counts against it; after the warm-up little else runs. Each build
 * encodes its own EncoderBenchmark rows: compare builds whose rows are the same.
 *
 * <p>{@code java -cp benchmarks.jar dev.pubsubclickhouse.benchmarks.EncoderCpuTime ROWS} prints one
 * line: {@code seed_ns=... mixed20_ns=...}, after a warm-up of its own. The bench suite runs it for
 * this build and for a baseline's benchmarks.jar (compiled against that jar), in turns.
 */
public final class EncoderCpuTime {
  private static final int WARM_UP_ROWS = 3_000_000;

  private EncoderCpuTime() {}

  public static void main(String[] args) throws Exception {
    int rows = Integer.parseInt(args[0]);
    OperatingSystemMXBean process =
        ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class);
    EncoderBenchmark benchmark = new EncoderBenchmark();
    benchmark.setUp();
    long sink = 0;
    for (int i = 0; i < WARM_UP_ROWS; i++) {
      sink += benchmark.seedRow() + benchmark.mixedRow20Columns();
    }
    long start = process.getProcessCpuTime();
    for (int i = 0; i < rows; i++) {
      sink += benchmark.seedRow();
    }
    long seedDone = process.getProcessCpuTime();
    int mixedRows = Math.max(1, rows / 10);
    for (int i = 0; i < mixedRows; i++) {
      sink += benchmark.mixedRow20Columns();
    }
    long mixedDone = process.getProcessCpuTime();
    // The sink is printed so that no loop can be optimised away.
    System.out.printf(
        "seed_ns=%.2f mixed20_ns=%.2f sink=%d%n",
        (seedDone - start) / (double) rows, (mixedDone - seedDone) / (double) mixedRows, sink & 1);
  }
}
