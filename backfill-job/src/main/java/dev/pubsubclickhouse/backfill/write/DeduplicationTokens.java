package dev.pubsubclickhouse.backfill.write;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The insert_deduplication_token of an INSERT: the source's fingerprint (table and last
 * modification, or query result table) and the source row range the INSERT covers. The same rows of
 * the same unchanged source give the same token whichever task, attempt or execution sends them.
 */
public final class DeduplicationTokens {
  private final String prefix;

  public DeduplicationTokens(String sourceFingerprint) {
    this.prefix = "bq-backfill:" + shortHash(sourceFingerprint) + ":";
  }

  /** The token of source rows [first, end). */
  public String forRows(long first, long end) {
    return prefix + first + "-" + end;
  }

  static String shortHash(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 10);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
