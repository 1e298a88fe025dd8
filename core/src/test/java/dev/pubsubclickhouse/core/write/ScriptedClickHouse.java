package dev.pubsubclickhouse.core.write;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import net.jpountz.lz4.LZ4FrameInputStream;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.RecordedRequest;

/**
 * A stand-in for ClickHouse's INSERT over HTTP, for faults a real server does not produce on
 * demand: it decodes each request (the typed header, then rows of one {@code UInt32} column {@code
 * id}), and answers by a rule: refuse rows whose id is "poison", fail as scripted, or store them.
 */
final class ScriptedClickHouse extends Dispatcher {
  /** One INSERT as received. */
  record Insert(List<String> columnTypes, List<Long> ids, String token) {}

  private final Set<Long> poison = Collections.synchronizedSet(new HashSet<>());
  private final Deque<Function<Insert, MockResponse>> scripted = new ArrayDeque<>();
  private final List<Insert> received = Collections.synchronizedList(new ArrayList<>());
  private final List<Long> stored = Collections.synchronizedList(new ArrayList<>());
  private final Supplier<String> untypedColumnType;
  private volatile Function<Insert, MockResponse> poisonAnswer =
      insert -> error(469, 400, "Constraint `no_poison` is violated. (VIOLATED_CONSTRAINT)", 0);

  /**
   * @param untypedColumnType the type of {@code id} as the table has it now, for INSERTs that carry
   *     no typed header
   */
  ScriptedClickHouse(Supplier<String> untypedColumnType) {
    this.untypedColumnType = untypedColumnType;
  }

  /** Rows with these ids make any INSERT that holds them fail. */
  void poison(long... ids) {
    for (long id : ids) {
      poison.add(id);
    }
  }

  /** How an INSERT holding poison fails (default: a constraint violation, 469). */
  void poisonAnswers(Function<Insert, MockResponse> answer) {
    poisonAnswer = answer;
  }

  /** The next INSERTs are answered so, whatever they hold, before the rules apply. */
  synchronized void thenAnswer(Function<Insert, MockResponse> answer) {
    scripted.addLast(answer);
  }

  List<Insert> received() {
    return List.copyOf(received);
  }

  /** Ids of the rows that INSERTs answered 200 held, in order. */
  List<Long> stored() {
    return List.copyOf(stored);
  }

  static MockResponse error(int code, int status, String message, long writtenRows) {
    MockResponse response =
        new MockResponse()
            .setResponseCode(status)
            .setHeader("X-ClickHouse-Exception-Code", Integer.toString(code))
            .setBody("Code: " + code + ". DB::Exception: " + message + "\n");
    if (writtenRows >= 0) {
      response.setHeader("X-ClickHouse-Summary", "{\"written_rows\":\"" + writtenRows + "\"}");
    }
    return response;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    Insert insert;
    try {
      insert = decode(request);
    } catch (IOException e) {
      return new MockResponse().setResponseCode(500).setBody("undecodable body: " + e);
    }
    received.add(insert);
    Function<Insert, MockResponse> next;
    synchronized (this) {
      next = scripted.pollFirst();
    }
    if (next != null) {
      return next.apply(insert);
    }
    if (insert.ids().stream().anyMatch(poison::contains)) {
      return poisonAnswer.apply(insert);
    }
    stored.addAll(insert.ids());
    return new MockResponse()
        .setResponseCode(200)
        .setHeader("X-ClickHouse-Summary", "{\"written_rows\":\"" + insert.ids().size() + "\"}");
  }

  private Insert decode(RecordedRequest request) throws IOException {
    byte[] body = request.getBody().readByteArray();
    if ("lz4".equals(request.getHeader("Content-Encoding"))) {
      try (InputStream in = new LZ4FrameInputStream(new ByteArrayInputStream(body))) {
        body = in.readAllBytes();
      }
    }
    Reader reader = new Reader(body);
    List<String> names = new ArrayList<>();
    List<String> types = new ArrayList<>();
    if (request.getRequestUrl().queryParameter("query").endsWith("FORMAT RowBinaryWithDefaults")) {
      names.add("id");
      types.add(untypedColumnType.get());
    } else {
      int columns = (int) reader.varUInt();
      for (int i = 0; i < columns; i++) {
        names.add(reader.string());
      }
      for (int i = 0; i < columns; i++) {
        types.add(reader.string());
      }
    }
    List<Long> ids = new ArrayList<>();
    while (reader.remaining() > 0) {
      for (String type : types) {
        if (reader.next() != 0) {
          throw new IOException("a DEFAULT flag where the test sends values");
        }
        long value = type.equals("UInt32") ? reader.uint32() : reader.int64();
        if (names.get(types.indexOf(type)).equals("id")) {
          ids.add(value);
        }
      }
    }
    return new Insert(
        types, ids, request.getRequestUrl().queryParameter("insert_deduplication_token"));
  }

  private static final class Reader {
    private final byte[] bytes;
    private int position;

    Reader(byte[] bytes) {
      this.bytes = bytes;
    }

    int remaining() {
      return bytes.length - position;
    }

    int next() throws IOException {
      if (position >= bytes.length) {
        throw new IOException("truncated body");
      }
      return bytes[position++] & 0xFF;
    }

    long varUInt() throws IOException {
      long value = 0;
      for (int shift = 0; ; shift += 7) {
        int b = next();
        value |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          return value;
        }
      }
    }

    String string() throws IOException {
      int length = (int) varUInt();
      String text = new String(bytes, position, length, StandardCharsets.UTF_8);
      position += length;
      return text;
    }

    long uint32() throws IOException {
      long value = 0;
      for (int i = 0; i < 4; i++) {
        value |= (long) next() << (8 * i);
      }
      return value;
    }

    long int64() throws IOException {
      long value = 0;
      for (int i = 0; i < 8; i++) {
        value |= (long) next() << (8 * i);
      }
      return value;
    }
  }
}
