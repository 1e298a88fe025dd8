package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.HttpUrl;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import okhttp3.mockwebserver.SocketPolicy;
import okio.Buffer;

/**
 * An HTTP proxy in front of a real ClickHouse that passes every request through until told to fail:
 * then it answers INSERTs (or everything) the way a struggling ClickHouse does — HTTP 503, a
 * memory-limit or too-many-parts error, a replicated table's quorum failure, or no answer at all.
 * The real server stays the one that stores the data; only the faults are made up. It keeps a
 * record of every INSERT it saw ({@link #inserts()}): the settings on the wire, such as the
 * deduplication token of each attempt.
 *
 * <p>A {@link Mutation} (the system property {@value #MUTATION_PROPERTY}, or {@link #mutate})
 * changes the INSERTs on their way through as a regressed service would send them; run the suite
 * with one to see that the tests catch it.
 */
public final class FaultInjectingProxy implements AutoCloseable {
  /**
   * An INSERT into a replicated table that cannot get its replicas, answered as ClickHouse 26.7
   * answers it: its error code and name, HTTP status 500 and the server's own message
   * (ReplicatedMergeTreeSink for the quorum, DistributedSink for a shard).
   */
  public enum ReplicaFailure {
    /** Checked before anything is written: nothing is stored; a later retry can pass. */
    TOO_FEW_LIVE_REPLICAS(
        285,
        "TOO_FEW_LIVE_REPLICAS",
        "DB::Exception",
        false,
        "Number of alive replicas (1) is less than requested quorum (2/2)."),
    /**
     * The part is written on the replica that took the INSERT, which then lost its Keeper session
     * while it waited for the others: whether the quorum will hold is unknown.
     */
    REPLICA_BECAME_INACTIVE(
        319,
        "UNKNOWN_STATUS_OF_INSERT",
        "DB::Exception",
        true,
        "Unknown quorum status. The data was inserted in the local replica, but we could not"
            + " verify the quorum. Reason: Replica became inactive while waiting for quorum"),
    /**
     * The part is written on the replica that took the INSERT; the other replicas did not confirm
     * it within insert_quorum_timeout.
     */
    QUORUM_TIMEOUT(
        319,
        "UNKNOWN_STATUS_OF_INSERT",
        "DB::Exception",
        true,
        "Unknown quorum status. The data was inserted in the local replica but we could not verify"
            + " quorum. Reason: Timeout while waiting for quorum"),
    /**
     * A Distributed table's INSERT with insert_distributed_sync=1 when no replica of one shard
     * answers; the other shards may keep their part of the rows (here the INSERT is passed on
     * first, standing for them).
     */
    ALL_REPLICAS_OF_A_SHARD_DOWN(
        279,
        "ALL_CONNECTION_TRIES_FAILED",
        "DB::NetException",
        true,
        "All connection tries failed. Log: \n\n"
            + "Code: 210. DB::NetException: Connection refused (10.0.0.12:9000). (NETWORK_ERROR)"
            + " (version %1$s)\n"
            + "Code: 210. DB::NetException: Connection refused (10.0.0.13:9000). (NETWORK_ERROR)"
            + " (version %1$s)\n\n"
            + ": Insertion status:\n"
            + "Wrote 1 blocks and 212 rows on shard 0 replica 0, 10.0.0.10:9000 (average 1 ms per"
            + " block)\n"
            + "Wrote 0 blocks and 0 rows on shard 1 replica 0, 10.0.0.12:9000 (average 1 ms per"
            + " block)\n");

    final int code;
    final String name;
    final String exceptionClass;
    final boolean rowsWritten;
    final String message;

    ReplicaFailure(
        int code, String name, String exceptionClass, boolean rowsWritten, String message) {
      this.code = code;
      this.name = name;
      this.exceptionClass = exceptionClass;
      this.rowsWritten = rowsWritten;
      this.message = message;
    }

    public int code() {
      return code;
    }

    /** True when the rows reach the table before the error is answered. */
    public boolean rowsWritten() {
      return rowsWritten;
    }
  }

  /**
   * What a regressed service would send; the proxy rewrites every INSERT accordingly. Only for
   * proving that the tests fail against such a service.
   */
  public enum Mutation {
    /**
     * {@code insert_distributed_sync=0}: a Distributed table queues the rows and answers at once.
     */
    ASYNC_DISTRIBUTED_INSERTS("async-distributed"),
    /** Every attempt of an INSERT carries a deduplication token of its own. */
    NEW_TOKEN_PER_INSERT("new-token-per-insert");

    private final String property;

    Mutation(String property) {
      this.property = property;
    }

    /** The mutations {@value #MUTATION_PROPERTY} names (comma-separated), usually none. */
    static Set<Mutation> requested() {
      Set<Mutation> requested = EnumSet.noneOf(Mutation.class);
      String names = System.getProperty(MUTATION_PROPERTY, "");
      for (String name : names.split(",")) {
        if (name.isBlank()) {
          continue;
        }
        requested.add(
            Arrays.stream(values())
                .filter(m -> m.property.equals(name.trim()))
                .findFirst()
                .orElseThrow(
                    () ->
                        new IllegalArgumentException(
                            MUTATION_PROPERTY
                                + ": unknown mutation '"
                                + name.trim()
                                + "' (async-distributed, new-token-per-insert)")));
      }
      return requested;
    }
  }

  /** The system property that names the {@link Mutation}s every proxy applies. */
  public static final String MUTATION_PROPERTY = "test.mutation";

  /**
   * One INSERT as it reached the proxy (after any {@link Mutation}).
   *
   * @param deduplicationToken its insert_deduplication_token, or null
   * @param url the request URL, with every setting as a query parameter
   * @param status the HTTP status it was answered with (0: no answer)
   */
  public record Insert(String deduplicationToken, HttpUrl url, int status) {
    /** A setting given as a query parameter, or null. */
    public String setting(String name) {
      return url.queryParameter(name);
    }
  }

  private static final Pattern TOKEN_IN_QUERY =
      Pattern.compile("insert_deduplication_token\\s*=\\s*'([^']*)'", Pattern.CASE_INSENSITIVE);
  private static final Pattern DISTRIBUTED_SYNC_IN_QUERY =
      Pattern.compile(
          "(insert_distributed_sync|distributed_foreground_insert)\\s*=\\s*(1|true)",
          Pattern.CASE_INSENSITIVE);

  /** A failure a healthy ClickHouse will not produce on demand. */
  public enum Fault {
    HTTP_500,
    HTTP_503,
    MEMORY_LIMIT_241,
    TOO_MANY_PARTS_252,
    NO_ANSWER
  }

  private static final Set<String> HOP_BY_HOP =
      Set.of("connection", "content-length", "transfer-encoding", "host", "keep-alive");

  private final MockWebServer server = new MockWebServer();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final URI target;
  private final AtomicReference<Fault> insertFault = new AtomicReference<>();
  private final AtomicReference<Fault> allFault = new AtomicReference<>();
  private final AtomicReference<ReplicaFailure> replicaFailure = new AtomicReference<>();
  private final AtomicReference<QueryFailure> queryFailure = new AtomicReference<>();
  private final AtomicInteger faulted = new AtomicInteger();
  private final AtomicReference<Duration> insertDelay = new AtomicReference<>(Duration.ZERO);
  private final Set<Mutation> mutations = EnumSet.noneOf(Mutation.class);
  private final Map<String, String> overriddenSettings = new LinkedHashMap<>();
  private final AtomicInteger mutatedTokens = new AtomicInteger();
  private final List<Insert> inserts = new ArrayList<>();
  private volatile String serverVersion;

  private FaultInjectingProxy(URI target) {
    this.target = target;
  }

  /** A proxy to {@code clickHouseUrl}, listening on a free local port. */
  public static FaultInjectingProxy to(String clickHouseUrl) {
    FaultInjectingProxy proxy = new FaultInjectingProxy(URI.create(clickHouseUrl));
    Mutation.requested().forEach(proxy::mutate);
    proxy.server.setDispatcher(proxy.new Forwarder());
    try {
      proxy.server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return proxy;
  }

  public String url() {
    return "http://127.0.0.1:" + server.getPort();
  }

  /** From now on every INSERT gets {@code fault}; other queries pass. */
  public void failInserts(Fault fault) {
    insertFault.set(fault);
  }

  /**
   * From now on every INSERT fails as an INSERT into a replicated table does when it cannot get its
   * replicas; where the real failure comes after the write, the INSERT is passed on first and its
   * rows are stored.
   */
  public void failInserts(ReplicaFailure failure) {
    replicaFailure.set(failure);
  }

  /** From now on every INSERT is changed as {@code mutation} says, on its way to ClickHouse. */
  /**
   * Sets these settings on every INSERT on its way to ClickHouse, over the service's own: for
   * faults the service's settings avoid, such as an INSERT stored as many blocks, part of which a
   * dying shard leaves behind.
   */
  public synchronized void overrideSettings(Map<String, String> settings) {
    overriddenSettings.putAll(settings);
  }

  public synchronized void mutate(Mutation mutation) {
    if (mutations.add(mutation)) {
      System.err.println("FaultInjectingProxy: mutation " + mutation + " is on");
    }
  }

  /**
   * Every INSERT answered so far, in the order the proxy answered them: one still held by {@link
   * #slowInserts} or on its way to ClickHouse is listed once its answer is.
   */
  public synchronized List<Insert> inserts() {
    return List.copyOf(inserts);
  }

  /** A server's error answer to the queries whose SQL starts with {@code sqlStart}. */
  private record QueryFailure(String sqlStart, int status, int code, String name) {}

  /**
   * From now on every query whose SQL starts with {@code sqlStart} is answered as a server answers
   * one it cannot run: HTTP {@code status}, ClickHouse error {@code code} with its {@code name}
   * (such as 62 SYNTAX_ERROR, as an older version answers a statement it does not know).
   */
  public void failQueries(String sqlStart, int status, int code, String name) {
    queryFailure.set(new QueryFailure(sqlStart, status, code, name));
  }

  /** From now on every request gets {@code fault}. */
  public void failEverything(Fault fault) {
    allFault.set(fault);
  }

  /**
   * From now on every INSERT is held this long before it is passed on: a ClickHouse slower than the
   * client's timeout, which still writes the rows after the client has given up.
   */
  public void slowInserts(Duration delay) {
    insertDelay.set(delay);
  }

  /** Pass everything through again, at once. */
  public void heal() {
    insertFault.set(null);
    allFault.set(null);
    replicaFailure.set(null);
    queryFailure.set(null);
    insertDelay.set(Duration.ZERO);
  }

  /** How many requests were answered with a fault. */
  public int faultedRequests() {
    return faulted.get();
  }

  @Override
  public void close() throws IOException {
    server.shutdown();
  }

  private final class Forwarder extends Dispatcher {
    @Override
    public MockResponse dispatch(RecordedRequest request) {
      String query = request.getRequestUrl().queryParameter("query");
      boolean insert = query != null && query.trim().toUpperCase(Locale.ROOT).startsWith("INSERT");
      HttpUrl url = insert ? mutated(request.getRequestUrl()) : request.getRequestUrl();
      MockResponse answer = answer(request, url, insert);
      if (insert) {
        record(url, answer);
      }
      return answer;
    }

    private MockResponse answer(RecordedRequest request, HttpUrl url, boolean insert) {
      Fault fault = allFault.get() != null ? allFault.get() : insert ? insertFault.get() : null;
      if (fault != null) {
        faulted.incrementAndGet();
        return answer(fault);
      }
      QueryFailure failing = queryFailure.get();
      if (failing != null && RequestSql.of(request).strip().startsWith(failing.sqlStart())) {
        faulted.incrementAndGet();
        return new MockResponse()
            .setResponseCode(failing.status())
            .setHeader("X-ClickHouse-Exception-Code", Integer.toString(failing.code()))
            .setBody(
                "Code: "
                    + failing.code()
                    + ". DB::Exception: injected by the test proxy. ("
                    + failing.name()
                    + ")\n");
      }
      ReplicaFailure replicas = insert ? replicaFailure.get() : null;
      if (replicas != null) {
        faulted.incrementAndGet();
        if (!replicas.rowsWritten) {
          return serverError(replicas, null, request, url);
        }
        MockResponse written = forward(request, url);
        return written.getStatus().contains(" 200 ")
            ? serverError(replicas, written, request, url)
            : written;
      }
      Duration delay = insert ? insertDelay.get() : Duration.ZERO;
      if (!delay.isZero()) {
        try {
          Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return forward(request, url);
    }

    private void record(HttpUrl url, MockResponse answer) {
      String token = url.queryParameter("insert_deduplication_token");
      if (token == null) {
        Matcher inQuery = TOKEN_IN_QUERY.matcher(String.valueOf(url.queryParameter("query")));
        token = inQuery.find() ? inQuery.group(1) : null;
      }
      String[] status = answer.getStatus().split(" ");
      int code =
          answer.getSocketPolicy() == SocketPolicy.KEEP_OPEN && status.length > 1
              ? Integer.parseInt(status[1])
              : 0;
      synchronized (FaultInjectingProxy.this) {
        inserts.add(new Insert(token, url, code));
      }
    }

    /** The INSERT as the {@link #mutations} say a regressed service would send it. */
    private HttpUrl mutated(HttpUrl url) {
      Set<Mutation> active;
      Map<String, String> overrides;
      synchronized (FaultInjectingProxy.this) {
        active = EnumSet.copyOf(mutations);
        overrides = Map.copyOf(overriddenSettings);
      }
      if (active.isEmpty() && overrides.isEmpty()) {
        return url;
      }
      HttpUrl.Builder changed = url.newBuilder();
      overrides.forEach(changed::setQueryParameter);
      String query = url.queryParameter("query");
      if (active.contains(Mutation.ASYNC_DISTRIBUTED_INSERTS)) {
        changed.removeAllQueryParameters("distributed_foreground_insert");
        changed.setQueryParameter("insert_distributed_sync", "0");
        query = DISTRIBUTED_SYNC_IN_QUERY.matcher(query).replaceAll("$1=0");
      }
      if (active.contains(Mutation.NEW_TOKEN_PER_INSERT)) {
        String suffix = "-mutated-" + mutatedTokens.incrementAndGet();
        String token = url.queryParameter("insert_deduplication_token");
        if (token != null) {
          changed.setQueryParameter("insert_deduplication_token", token + suffix);
        }
        query =
            TOKEN_IN_QUERY
                .matcher(query)
                .replaceAll(
                    m ->
                        Matcher.quoteReplacement(
                            "insert_deduplication_token = '" + m.group(1) + suffix + "'"));
      }
      return changed.setQueryParameter("query", query).build();
    }

    private MockResponse answer(Fault fault) {
      return switch (fault) {
        case HTTP_500 -> new MockResponse().setResponseCode(500).setBody("Internal Server Error");
        case HTTP_503 -> new MockResponse().setResponseCode(503).setBody("Service Unavailable");
        case MEMORY_LIMIT_241 -> serverError(241, "MEMORY_LIMIT_EXCEEDED");
        case TOO_MANY_PARTS_252 -> serverError(252, "TOO_MANY_PARTS");
        case NO_ANSWER -> new MockResponse().setSocketPolicy(SocketPolicy.NO_RESPONSE);
      };
    }

    private MockResponse serverError(int code, String name) {
      return new MockResponse()
          .setResponseCode(500)
          .setHeader("X-ClickHouse-Exception-Code", Integer.toString(code))
          .setBody(
              "Code: " + code + ". DB::Exception: injected by the test proxy. (" + name + ")\n");
    }

    /**
     * The error ClickHouse answers for {@code failure}: status 500 (exceptionCodeToHTTPStatus), its
     * X-ClickHouse headers — those of the real answer to the written INSERT where there is one —
     * and its text in the server's format.
     */
    private MockResponse serverError(
        ReplicaFailure failure, MockResponse written, RecordedRequest request, HttpUrl url) {
      MockResponse error = new MockResponse().setResponseCode(500);
      if (written != null) {
        written
            .getHeaders()
            .forEach(
                header -> {
                  if (header.getFirst().toLowerCase(Locale.ROOT).startsWith("x-clickhouse-")
                      || header.getFirst().equalsIgnoreCase("Access-Control-Expose-Headers")) {
                    error.addHeader(header.getFirst(), header.getSecond());
                  }
                });
      } else {
        String queryId = url.queryParameter("query_id");
        error.setHeader("X-ClickHouse-Query-Id", queryId != null ? queryId : UUID.randomUUID());
        error.setHeader("X-ClickHouse-Timezone", "Etc/UTC");
        error.setHeader(
            "X-ClickHouse-Summary",
            "{\"read_rows\":\"0\",\"read_bytes\":\"0\",\"written_rows\":\"0\","
                + "\"written_bytes\":\"0\",\"total_rows_to_read\":\"0\",\"result_rows\":\"0\","
                + "\"result_bytes\":\"0\",\"elapsed_ns\":\"1000000\",\"memory_usage\":\"0\"}");
      }
      StringBuilder tag = new StringBuilder();
      for (int i = 0; i < 16; i++) {
        tag.append((char) ('a' + ThreadLocalRandom.current().nextInt(26)));
      }
      String version = serverVersion(request);
      String message = failure.message.formatted(version);
      String text = message.endsWith(".") ? message : message + ".";
      return error
          .setHeader("Content-Type", "text/plain; charset=UTF-8")
          .setHeader("X-ClickHouse-Exception-Code", Integer.toString(failure.code))
          .setHeader("X-ClickHouse-Exception-Tag", tag.toString())
          .setBody(
              "Code: "
                  + failure.code
                  + ". "
                  + failure.exceptionClass
                  + ": "
                  + text
                  + " ("
                  + failure.name
                  + ") (version "
                  + version
                  + ")\n");
    }

    /** The real server's version, asked once with the credentials of {@code request}. */
    private String serverVersion(RecordedRequest request) {
      if (serverVersion == null) {
        HttpRequest.Builder ask =
            HttpRequest.newBuilder(
                    target.resolve(
                        "/?query=" + URLEncoder.encode("SELECT version()", StandardCharsets.UTF_8)))
                .timeout(Duration.ofSeconds(10));
        for (String name : List.of("Authorization", "X-ClickHouse-User", "X-ClickHouse-Key")) {
          String value = request.getHeader(name);
          if (value != null) {
            ask.header(name, value);
          }
        }
        try {
          serverVersion =
              http.send(ask.build(), HttpResponse.BodyHandlers.ofString()).body().trim();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      return serverVersion;
    }

    private MockResponse forward(RecordedRequest request, HttpUrl url) {
      String path =
          url.encodedPath() + (url.encodedQuery() == null ? "" : "?" + url.encodedQuery());
      HttpRequest.Builder out =
          HttpRequest.newBuilder(target.resolve(path)).timeout(Duration.ofSeconds(60));
      for (String name : request.getHeaders().names()) {
        if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))) {
          for (String value : request.getHeaders().values(name)) {
            out.header(name, value);
          }
        }
      }
      byte[] body = request.getBody().readByteArray();
      out.method(request.getMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
      try {
        HttpResponse<byte[]> response =
            http.send(out.build(), HttpResponse.BodyHandlers.ofByteArray());
        MockResponse answer = new MockResponse().setResponseCode(response.statusCode());
        response
            .headers()
            .map()
            .forEach(
                (name, values) -> {
                  if (!HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))
                      && !name.startsWith(":")) {
                    List<String> all = values;
                    all.forEach(value -> answer.addHeader(name, value));
                  }
                });
        return answer.setBody(new Buffer().write(response.body()));
      } catch (IOException e) {
        return new MockResponse().setSocketPolicy(SocketPolicy.DISCONNECT_AT_START);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new MockResponse().setSocketPolicy(SocketPolicy.DISCONNECT_AT_START);
      }
    }
  }
}
