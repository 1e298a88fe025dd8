package dev.pubsubclickhouse.backfill.source;

import com.google.api.gax.core.FixedCredentialsProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.rpc.StatusCode;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.bigquery.TableId;
import com.google.cloud.bigquery.storage.v1.BigQueryReadClient;
import com.google.cloud.bigquery.storage.v1.BigQueryReadSettings;
import com.google.cloud.bigquery.storage.v1.CreateReadSessionRequest;
import com.google.cloud.bigquery.storage.v1.DataFormat;
import com.google.cloud.bigquery.storage.v1.ReadSession;
import com.google.cloud.bigquery.storage.v1.ReadStream;
import com.google.protobuf.Timestamp;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The BigQuery Storage Read API: the client, and read sessions of a table at a snapshot time with
 * an optional row restriction, in Avro. The client library's own retries are off: every call goes
 * through the job's {@link BigQueryRetry}, and a broken stream is resumed by {@link
 * ReadStreamUnit}.
 */
public final class StorageReads implements AutoCloseable {
  /** A created session: what every task of the execution needs to read its streams. */
  public record Session(String name, List<String> streams, String avroSchema, long estimatedRows) {}

  private final BigQueryReadClient client;
  private final BigQueryRetry retry;

  private StorageReads(BigQueryReadClient client, BigQueryRetry retry) {
    this.client = client;
    this.retry = retry;
  }

  /**
   * @param endpoint {@code host:port} of a plaintext test server, or empty for Google's
   * @param credentialsWithEndpoint use default credentials even with an endpoint override
   */
  public static StorageReads open(
      Optional<String> endpoint, boolean credentialsWithEndpoint, BigQueryRetry retry)
      throws IOException {
    BigQueryReadSettings.Builder settings = BigQueryReadSettings.newBuilder();
    if (endpoint.isPresent()) {
      settings
          .setEndpoint(endpoint.get())
          .setTransportChannelProvider(
              BigQueryReadSettings.defaultGrpcTransportProviderBuilder()
                  .setEndpoint(endpoint.get())
                  .setChannelConfigurator(ManagedChannelBuilder::usePlaintext)
                  .build());
      settings.setCredentialsProvider(
          credentialsWithEndpoint
              ? FixedCredentialsProvider.create(GoogleCredentials.getApplicationDefault())
              : NoCredentialsProvider.create());
    }
    Set<StatusCode.Code> none = Set.of();
    settings.createReadSessionSettings().setRetryableCodes(none);
    settings.readRowsSettings().setRetryableCodes(none);
    settings.splitReadStreamSettings().setRetryableCodes(none);
    return new StorageReads(BigQueryReadClient.create(settings.build()), retry);
  }

  public BigQueryReadClient client() {
    return client;
  }

  /**
   * Creates a read session of {@code table} in Avro.
   *
   * @param snapshot the snapshot time, or empty for a table that does not change (a query result)
   * @param rowRestriction a SQL condition on the table's columns, or empty
   * @param streams how many streams to ask for (BigQuery may give fewer)
   */
  public Session create(
      String project,
      TableId table,
      Optional<Instant> snapshot,
      Optional<String> rowRestriction,
      int streams)
      throws InterruptedException {
    ReadSession.Builder session =
        ReadSession.newBuilder()
            .setTable(
                "projects/"
                    + table.getProject()
                    + "/datasets/"
                    + table.getDataset()
                    + "/tables/"
                    + table.getTable())
            .setDataFormat(DataFormat.AVRO);
    rowRestriction.ifPresent(
        condition ->
            session.setReadOptions(
                ReadSession.TableReadOptions.newBuilder().setRowRestriction(condition)));
    snapshot.ifPresent(
        time ->
            session.setTableModifiers(
                ReadSession.TableModifiers.newBuilder()
                    .setSnapshotTime(
                        Timestamp.newBuilder()
                            .setSeconds(time.getEpochSecond())
                            .setNanos(time.getNano()))));
    CreateReadSessionRequest request =
        CreateReadSessionRequest.newBuilder()
            .setParent("projects/" + project)
            .setReadSession(session)
            .setMaxStreamCount(streams)
            .build();
    ReadSession created =
        retry.call(
            "CreateReadSession", TableSpec.format(table), () -> client.createReadSession(request));
    return new Session(
        created.getName(),
        created.getStreamsList().stream().map(ReadStream::getName).toList(),
        created.getAvroSchema().getSchema(),
        created.getEstimatedRowCount());
  }

  @Override
  public void close() {
    client.close();
  }
}
