package dev.pubsubclickhouse.function;

import com.google.pubsub.v1.GetSchemaRequest;
import com.google.pubsub.v1.Schema;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local stand-in for Pub/Sub's schema service (gcloud's emulator keeps Avro schemas only): a gRPC
 * server on a free loopback port that answers {@code google.pubsub.v1.SchemaService/GetSchema} for
 * the revisions it was given, {@code NOT_FOUND} for others, {@code PERMISSION_DENIED} for the
 * schemas it was told to deny, and {@code UNAVAILABLE} while told to fail. The service under test
 * reaches it through {@code PUBSUB_ENDPOINT}, as the emulator.
 */
final class SchemaServiceStandIn implements AutoCloseable {
  private static final MethodDescriptor<GetSchemaRequest, Schema> GET_SCHEMA =
      MethodDescriptor.<GetSchemaRequest, Schema>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("google.pubsub.v1.SchemaService/GetSchema")
          .setRequestMarshaller(ProtoUtils.marshaller(GetSchemaRequest.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(Schema.getDefaultInstance()))
          .build();

  private final Map<String, Schema> revisions = new ConcurrentHashMap<>();
  private final AtomicInteger calls = new AtomicInteger();
  private final Set<String> denied = ConcurrentHashMap.newKeySet();
  private volatile boolean failing;
  private final Server server;

  SchemaServiceStandIn() throws IOException {
    ServerServiceDefinition service =
        ServerServiceDefinition.builder("google.pubsub.v1.SchemaService")
            .addMethod(
                GET_SCHEMA,
                ServerCalls.asyncUnaryCall(
                    (request, answer) -> {
                      calls.incrementAndGet();
                      Schema schema = revisions.get(request.getName());
                      if (failing) {
                        answer.onError(
                            Status.UNAVAILABLE.withDescription("stand-in down").asException());
                      } else if (denied.contains(request.getName().split("@")[0])) {
                        answer.onError(
                            Status.PERMISSION_DENIED
                                .withDescription("may not read " + request.getName())
                                .asException());
                      } else if (schema == null) {
                        answer.onError(
                            Status.NOT_FOUND
                                .withDescription("no schema " + request.getName())
                                .asException());
                      } else {
                        answer.onNext(schema);
                        answer.onCompleted();
                      }
                    }))
            .build();
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(service)
            .build()
            .start();
  }

  /** {@code 127.0.0.1:port}, for PUBSUB_ENDPOINT. */
  String endpoint() {
    return "127.0.0.1:" + server.getPort();
  }

  /** Serves this revision of a schema, as GetSchema names it: {@code projects/P/schemas/S@R}. */
  void put(String name, String revision, Schema.Type type, String definition) {
    revisions.put(
        name + "@" + revision,
        Schema.newBuilder()
            .setName(name)
            .setType(type)
            .setDefinition(definition)
            .setRevisionId(revision)
            .build());
  }

  /** Answers PERMISSION_DENIED for every revision of this schema. */
  void deny(String name) {
    denied.add(name);
  }

  void failing(boolean failing) {
    this.failing = failing;
  }

  int calls() {
    return calls.get();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
