package dev.pubsubclickhouse.testing;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import okhttp3.HttpUrl;
import okhttp3.mockwebserver.RecordedRequest;

/**
 * The SQL of a request to ClickHouse's HTTP interface: the {@code query} parameter, or else the
 * body, which client-v2 compresses in ClickHouse's own LZ4 blocks when it sends {@code
 * decompress=1} (a 16-byte checksum, the method byte, the compressed size with its 9-byte header,
 * the plain size, then the LZ4 block).
 */
final class RequestSql {
  private static final int CHECKSUM = 16;
  private static final int HEADER = 9;
  private static final LZ4SafeDecompressor LZ4 = LZ4Factory.fastestInstance().safeDecompressor();

  private RequestSql() {}

  /** The request's SQL, leaving its body to be read again. */
  static String of(RecordedRequest request) {
    HttpUrl url = request.getRequestUrl();
    String query = url.queryParameter("query");
    if (query != null) {
      return query;
    }
    byte[] body = request.getBody().clone().readByteArray();
    if (!"1".equals(url.queryParameter("decompress"))) {
      return new String(body, StandardCharsets.UTF_8);
    }
    StringBuilder sql = new StringBuilder();
    ByteBuffer in = ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN);
    while (in.remaining() > CHECKSUM + HEADER) {
      int start = in.position() + CHECKSUM;
      int compressed = in.getInt(start + 1);
      int plain = in.getInt(start + 5);
      byte[] out = new byte[plain];
      LZ4.decompress(body, start + HEADER, compressed - HEADER, out, 0);
      sql.append(new String(out, StandardCharsets.UTF_8));
      in.position(start + compressed);
    }
    return sql.toString();
  }
}
