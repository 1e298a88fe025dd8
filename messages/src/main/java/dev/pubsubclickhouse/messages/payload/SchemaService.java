package dev.pubsubclickhouse.messages.payload;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.retrying.RetrySettings;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.cloud.pubsub.v1.SchemaServiceClient;
import com.google.cloud.pubsub.v1.SchemaServiceSettings;
import com.google.pubsub.v1.GetSchemaRequest;
import com.google.pubsub.v1.Schema;
import com.google.pubsub.v1.SchemaView;
import dev.pubsubclickhouse.messages.PubSubRetries;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.time.Duration;

/**
 * Pub/Sub's schema service through the Google client, made when the first message with a schema
 * arrives (a service that never sees one never connects). With an endpoint ({@code host:port} of
 * the emulator or a test server) it talks plaintext without credentials.
 */
public final class SchemaService implements SchemaFetcher, AutoCloseable {
  /** A fetch gives up after 10 s: the request waiting on it is answered 503 and comes back. */
  private static final RetrySettings RETRIES =
      PubSubRetries.within(Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(2));

  private final String endpoint;
  private SchemaServiceClient client;
  private ManagedChannel channel;

  /**
   * @param endpoint {@code host:port} to talk to in plaintext, or null for Google's
   */
  public SchemaService(String endpoint) {
    this.endpoint = endpoint;
  }

  @Override
  public Schema fetch(String resource) throws IOException {
    return client()
        .getSchema(
            GetSchemaRequest.newBuilder().setName(resource).setView(SchemaView.FULL).build());
  }

  private synchronized SchemaServiceClient client() throws IOException {
    if (client == null) {
      SchemaServiceSettings.Builder settings = SchemaServiceSettings.newBuilder();
      settings.getSchemaSettings().setRetrySettings(RETRIES);
      if (endpoint != null && !endpoint.isBlank()) {
        channel = ManagedChannelBuilder.forTarget(endpoint).usePlaintext().build();
        settings
            .setTransportChannelProvider(
                FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel)))
            .setCredentialsProvider(NoCredentialsProvider.create());
      }
      client = SchemaServiceClient.create(settings.build());
    }
    return client;
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.close();
    }
    if (channel != null) {
      channel.shutdownNow();
    }
  }
}
