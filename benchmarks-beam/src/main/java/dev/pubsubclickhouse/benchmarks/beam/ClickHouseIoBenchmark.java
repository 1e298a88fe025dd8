package dev.pubsubclickhouse.benchmarks.beam;

import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.io.clickhouse.ClickHouseIO;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.SimpleFunction;
import org.apache.beam.sdk.values.Row;
import org.joda.time.DateTimeZone;
import org.joda.time.Instant;
import org.joda.time.format.DateTimeFormat;

/**
 * The backfill baseline: Beam's ClickHouseIO (the sink the Dataflow BigQuery-to-ClickHouse template
 * uses) on the DirectRunner, writing the same seed rows into the same table. The rows are made in
 * memory (GenerateSequence, then a Row per number), so Beam pays nothing for reading BigQuery
 * pages: the comparison favours Beam. The DirectRunner's immutability and encodability checks (test
 * aids) are switched off, also in Beam's favour.
 *
 * <p>{@code java -jar benchmarks-beam.jar JDBC_URL TABLE ROWS [beam options]}; prints {@code BEAM
 * {json}}.
 */
public final class ClickHouseIoBenchmark {
  private ClickHouseIoBenchmark() {}

  static final Schema SEED =
      Schema.builder()
          .addDateTimeField("event_time")
          .addStringField("service")
          .addStringField("level")
          .addStringField("message")
          .build();

  /** The seed row; the time is parsed once. */
  static final class SeedRow extends SimpleFunction<Long, Row> {
    private static final Instant TIME =
        DateTimeFormat.forPattern("yyyy-MM-dd HH:mm:ss")
            .withZone(DateTimeZone.UTC)
            .parseDateTime("2025-12-30 12:00:00")
            .toInstant();

    @Override
    public Row apply(Long number) {
      return Row.withSchema(SEED).addValues(TIME, "api", "INFO", "PRE-DATAFLOW TEST").build();
    }
  }

  public static void main(String[] args) {
    String jdbcUrl = args[0];
    String table = args[1];
    long rows = Long.parseLong(args[2]);
    String[] beamArgs = new String[args.length - 3];
    System.arraycopy(args, 3, beamArgs, 0, beamArgs.length);
    DirectOptions options = PipelineOptionsFactory.fromArgs(beamArgs).as(DirectOptions.class);
    options.setRunner(DirectRunner.class);
    options.setEnforceImmutability(false);
    options.setEnforceEncodability(false);

    Pipeline pipeline = Pipeline.create(options);
    pipeline
        .apply("Seed rows", GenerateSequence.from(0).to(rows))
        .apply("To Row", MapElements.via(new SeedRow()))
        .setRowSchema(SEED)
        .apply("ClickHouseIO", ClickHouseIO.<Row>write(jdbcUrl, table));
    long start = System.nanoTime();
    pipeline.run().waitUntilFinish();
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        "BEAM {\"rows\":%d,\"seconds\":%.3f,\"rows_per_s\":%.0f,\"parallelism\":%d}%n",
        rows, seconds, rows / seconds, options.getTargetParallelism());
  }
}
