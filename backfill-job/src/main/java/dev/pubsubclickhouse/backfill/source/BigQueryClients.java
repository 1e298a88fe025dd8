package dev.pubsubclickhouse.backfill.source;

import com.google.cloud.NoCredentials;
import com.google.cloud.ServiceOptions;
import com.google.cloud.bigquery.BigQuery;
import com.google.cloud.bigquery.BigQueryOptions;
import java.net.URI;
import java.util.Optional;

/** Builds the BigQuery client: Google's endpoint with default credentials, or an override. */
public final class BigQueryClients {
  private BigQueryClients() {}

  /**
   * @param endpoint a root URL such as {@code http://127.0.0.1:9050} (emulator, test server)
   * @param credentialsWithEndpoint use default credentials even with an endpoint override (when
   *     GOOGLE_APPLICATION_CREDENTIALS is set)
   * @param libraryRetries let the client library retry on its own (for callers that do not wrap
   *     their calls in {@link BigQueryRetry}, the dead-letter writer)
   */
  public static BigQuery open(
      String project,
      Optional<String> location,
      Optional<URI> endpoint,
      boolean credentialsWithEndpoint,
      boolean libraryRetries) {
    BigQueryOptions.Builder options = BigQueryOptions.newBuilder().setProjectId(project);
    if (!libraryRetries) {
      // The job retries every call itself (BigQueryRetry): one policy, not two stacked.
      options.setRetrySettings(ServiceOptions.getNoRetrySettings());
    }
    location.ifPresent(options::setLocation);
    if (endpoint.isPresent()) {
      options.setHost(withoutTrailingSlash(endpoint.get().toString()));
      if (!credentialsWithEndpoint) {
        // An emulator or a local test server needs no Google account.
        options.setCredentials(NoCredentials.getInstance());
      }
    }
    return options.build().getService();
  }

  private static String withoutTrailingSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
