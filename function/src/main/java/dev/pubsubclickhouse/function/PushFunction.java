package dev.pubsubclickhouse.function;

import com.google.cloud.functions.HttpFunction;
import com.google.cloud.functions.HttpRequest;
import com.google.cloud.functions.HttpResponse;
import dev.pubsubclickhouse.core.log.JsonLog;
import dev.pubsubclickhouse.core.log.RequestTrace;
import dev.pubsubclickhouse.function.auth.PushAuthenticator;
import dev.pubsubclickhouse.function.envelope.NotAPushRequestException;
import dev.pubsubclickhouse.function.ingest.PushAnswer;
import dev.pubsubclickhouse.function.ingest.PushOutcome;
import dev.pubsubclickhouse.function.ingest.RequestMemoryBudget;
import dev.pubsubclickhouse.function.observability.RefusalLog;
import dev.pubsubclickhouse.messages.PubSubMessage;
import java.io.IOException;
import java.io.Writer;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The HTTP edge, kept thin: {@code POST /} takes a Pub/Sub push request, {@code GET /healthz} says
 * whether messages can be written now (ClickHouse and the tables answer; else 503 and why), {@code
 * GET /livez} whether the process serves (start-up and liveness probe: a ClickHouse outage must not
 * restart instances), {@code GET /metrics} serves Prometheus text. With the push token check on,
 * the probes tell why only to a caller whose token passes, and metrics are served only on {@code
 * METRICS_PORT} ({@link MetricsServer}). Every outcome is an explicit status; nothing escapes as an
 * accidental 500.
 */
public final class PushFunction implements HttpFunction {
  private final PushService service;
  private final RefusalLog refusals = new RefusalLog(System::nanoTime);

  /**
   * True unless a server that counts the requests in progress for the shutdown installed the
   * service ({@link PushServer}, the jar's Main: until the answer is on the wire). Under the
   * Functions Framework's own invoker (a Cloud Functions deployment) nothing else counts them: a
   * request counts until this handler returns, and the invoker writes its answer right after.
   */
  private final boolean countsItsRequests;

  /** The Functions Framework's constructor: the process's shared service. */
  public PushFunction() {
    this(PushService.shared());
  }

  PushFunction(PushService service) {
    this.service = service;
    this.countsItsRequests = !service.requestsCountedByItsServer();
  }

  @Override
  public void service(HttpRequest request, HttpResponse response) throws IOException {
    if (countsItsRequests) {
      service.requestStarted();
    }
    Optional<RequestTrace> trace =
        RequestTrace.from(
            request.getFirstHeader("traceparent").orElse(null),
            request.getFirstHeader("X-Cloud-Trace-Context").orElse(null));
    try (JsonLog.RequestScope scope = JsonLog.request(trace)) {
      serve(request, response);
    } finally {
      if (countsItsRequests) {
        service.requestEnded();
      }
    }
  }

  private void serve(HttpRequest request, HttpResponse response) throws IOException {
    RequestBody body = new RequestBody(request);
    try {
      String path = request.getPath();
      String method = request.getMethod();
      if ("/livez".equals(path)) {
        probe(request, response, body, service.deathCause(), "alive");
      } else if ("/healthz".equals(path)) {
        Optional<String> unhealthy =
            "GET".equals(method) ? service.unhealthyReason() : Optional.of("use GET");
        probe(request, response, body, unhealthy, "ok");
      } else if ("/metrics".equals(path)
          && "GET".equals(method)
          && service.config().metricsOnPushPort()) {
        body.settle(response, false);
        response.setStatusCode(200);
        response.setContentType("text/plain; version=0.0.4; charset=utf-8");
        response.getWriter().write(service.metrics().prometheusText());
      } else if (!"/".equals(path) || service.config().pull().isPresent()) {
        // A pulling service takes no push requests: its port serves the probes and metrics only.
        respond(response, body, 404, "not found");
      } else if (!"POST".equals(method)) {
        response.appendHeader("Allow", "POST");
        respond(response, body, 405, "push requests are POSTed");
      } else {
        PushAnswer answer = push(request, body);
        if (answer.outcome() == PushOutcome.UNAVAILABLE) {
          service.metrics().unavailable.increment();
        } else if (answer.outcome() == PushOutcome.UNPROCESSABLE) {
          service.metrics().unprocessable.increment();
        }
        respond(response, body, answer);
      }
    } catch (RuntimeException | Error e) {
      JsonLog.error("request failed unexpectedly; answered 503", Map.of(), e);
      respond(response, body, 503, "internal error; retry");
    }
  }

  /**
   * A probe's answer: 200 and {@code fine}, or 503 and why not. With the token check on, only a
   * caller whose token passes hears why (the reason names ClickHouse's address and its errors); the
   * others, Cloud Run's probes among them, get a word, and the reason is in the log.
   */
  private void probe(
      HttpRequest request,
      HttpResponse response,
      RequestBody body,
      Optional<String> problem,
      String fine)
      throws IOException {
    if (problem.isEmpty()) {
      respond(response, body, 200, fine);
    } else {
      respond(response, body, 503, mayHearWhy(request) ? problem.get() : "unavailable");
    }
  }

  private boolean mayHearWhy(HttpRequest request) {
    return service
        .config()
        .authenticator()
        .map(
            check ->
                check.check(request.getFirstHeader("Authorization").orElse(null))
                    == PushAuthenticator.Verdict.ADMITTED)
        .orElse(true);
  }

  private PushAnswer push(HttpRequest request, RequestBody body) throws IOException {
    if (service.config().authenticator().isPresent()) {
      switch (service
          .config()
          .authenticator()
          .get()
          .check(request.getFirstHeader("Authorization").orElse(null))) {
        case UNAUTHENTICATED -> {
          return PushAnswer.of(PushOutcome.UNAUTHENTICATED);
        }
        case FORBIDDEN -> {
          return PushAnswer.of(PushOutcome.FORBIDDEN);
        }
        case ADMITTED -> {}
      }
    }
    int limit = service.config().maxRequestBytes();
    long declared = request.getContentLength();
    if (declared > limit) {
      return PushAnswer.of(PushOutcome.TOO_LARGE);
    }
    // Reserved before the body is read (a body of unknown length counts as the largest allowed);
    // reading the message charges the hold with more as it goes.
    RequestMemoryBudget.Hold memory =
        service.requestMemory().hold(RequestMemoryBudget.cost(declared < 0 ? limit : declared));
    if (memory == null) {
      service.metrics().overloaded.increment();
      return PushAnswer.of(PushOutcome.OVERLOADED);
    }
    try (memory) {
      return readAndPush(request, body, limit, memory);
    }
  }

  private PushAnswer readAndPush(
      HttpRequest request, RequestBody body, int limit, RequestMemoryBudget.Hold memory)
      throws IOException {
    byte[] bytes = body.read(limit);
    if (bytes == null) {
      return PushAnswer.of(PushOutcome.TOO_LARGE);
    }
    PubSubMessage message;
    try {
      message = service.parser().parse(bytes, lowerCaseHeaders(request.getHeaders()));
    } catch (NotAPushRequestException e) {
      service.metrics().badRequests.increment();
      return PushAnswer.of(PushOutcome.NOT_A_PUSH_REQUEST);
    }
    PushAnswer answer = service.push(message, memory);
    if (answer.reason() == null) {
      return answer;
    }
    String reason =
        PushAnswer.reasonText(
            answer.reason(), request.getFirstHeader("Authorization").orElse(null));
    refusals.refused(message, answer.outcome() == PushOutcome.DEAD_LETTERED, reason);
    return new PushAnswer(answer.outcome(), reason);
  }

  private static Map<String, List<String>> lowerCaseHeaders(Map<String, List<String>> headers) {
    Map<String, List<String>> lower = new HashMap<>(headers.size() * 2);
    headers.forEach((name, values) -> lower.put(name.toLowerCase(Locale.ROOT), values));
    return lower;
  }

  /**
   * The answer to a push request: no body for an ack, the reason ({@link PushAnswer#reasonText})
   * for a message that cannot be written, else the outcome's name.
   */
  private static void respond(HttpResponse response, RequestBody body, PushAnswer answer)
      throws IOException {
    PushOutcome outcome = answer.outcome();
    body.settle(response, outcome == PushOutcome.TOO_LARGE);
    if (outcome.status() == 204) {
      response.setStatusCode(204);
    } else if (answer.reason() != null) {
      write(response, outcome.status(), answer.reason());
    } else {
      write(response, outcome.status(), outcome.name().toLowerCase(Locale.ROOT).replace('_', ' '));
    }
  }

  private static void respond(HttpResponse response, RequestBody body, int status, String text)
      throws IOException {
    body.settle(response, false);
    write(response, status, text);
  }

  /**
   * The answer's text. Neither the writer nor the stream is closed here: the framework closes the
   * response after {@link #service} returns, and closing it twice costs an exception per request
   * inside the framework (Functions Framework 2.0.0 on the Jetty 12.1.3 it bundles).
   */
  private static void write(HttpResponse response, int status, String text) throws IOException {
    response.setStatusCode(status);
    response.setContentType("text/plain; charset=utf-8");
    Writer writer = response.getWriter();
    writer.write(text);
    writer.write('\n');
  }
}
