package dev.pubsubclickhouse.backfill.source;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.api.gax.rpc.ServerStream;
import com.google.cloud.bigquery.storage.v1.BigQueryReadClient;
import com.google.cloud.bigquery.storage.v1.ReadRowsRequest;
import com.google.cloud.bigquery.storage.v1.ReadRowsResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One stream of a Storage Read API session, read with ReadRows from a row offset. Blocks of Avro
 * rows are gathered into pages of about {@code pageRows} rows (one INSERT each). A stream that
 * breaks for a transient reason is opened again at the offset of the first row not yet received, so
 * no row is read twice or skipped.
 */
public record ReadStreamUnit(
    BigQueryReadClient client,
    String stream,
    String avroSchema,
    int pageRows,
    BigQueryRetry retry,
    String key)
    implements ReadUnit {

  @Override
  public RowRange range() {
    return new RowRange(0, Long.MAX_VALUE);
  }

  @Override
  public String describe() {
    return stream;
  }

  @Override
  public long knownRows() {
    return -1;
  }

  @Override
  public void read(RowRange part, PageSink pages) throws Exception {
    AvroRows avro = new AvroRows(avroSchema);
    long offset = part.start();
    long pageStart = part.start();
    List<ObjectNode> rows = new ArrayList<>();
    int failures = 0;
    while (true) {
      try {
        ServerStream<ReadRowsResponse> responses =
            client
                .readRowsCallable()
                .call(ReadRowsRequest.newBuilder().setReadStream(stream).setOffset(offset).build());
        for (ReadRowsResponse response : responses) {
          if (!response.hasAvroRows()) {
            continue;
          }
          long count =
              response.getRowCount() > 0
                  ? response.getRowCount()
                  : response.getAvroRows().getRowCount();
          decode(avro, response, count, offset, rows);
          offset += count;
          failures = 0;
          if (rows.size() >= pageRows) {
            pages.accept(new Page(pageStart, rows, null));
            pageStart = offset;
            rows = new ArrayList<>();
          }
        }
        if (!rows.isEmpty()) {
          pages.accept(new Page(pageStart, rows, null));
        }
        return;
      } catch (RuntimeException e) {
        if (e instanceof SourceException || !BigQueryRetry.isTransient(e)) {
          throw e instanceof SourceException ? e : failure(offset, e, failures + 1, false);
        }
        if (++failures >= retry.maxAttempts()) {
          throw failure(offset, e, failures, true);
        }
        Thread.sleep(retry.backoffMillis(failures, e));
      }
    }
  }

  private void decode(
      AvroRows avro, ReadRowsResponse response, long count, long offset, List<ObjectNode> rows) {
    try {
      avro.decode(response.getAvroRows().getSerializedBinaryRows().toByteArray(), count, rows);
    } catch (IOException | RuntimeException e) {
      throw new SourceException(
          "ReadRows " + stream + " at offset " + offset + ": the Avro rows do not decode: " + e);
    }
  }

  private SourceException failure(long offset, RuntimeException e, int attempts, boolean gaveUp) {
    SourceException failure =
        new SourceException(
            "BigQuery ReadRows ("
                + stream
                + " at offset "
                + offset
                + ") failed"
                + (gaveUp ? " after " + attempts + " attempts" : "")
                + ": "
                + BigQueryRetry.describe(e));
    failure.initCause(e);
    return failure;
  }
}
