package dev.pubsubclickhouse.core.write;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The insert_deduplication_token of an INSERT: a hash of the identities of the records it carries,
 * in order. The same records give the same token on every retry and redelivery, so a deduplicating
 * table drops an INSERT whose first attempt landed though its answer was lost; any other set of
 * records gives another token. Identities are length-prefixed, so no two lists of them hash the
 * same input.
 */
public final class DeduplicationTokens {
  /** Cloned for every token: looking the algorithm up among the providers costs more than it. */
  private static final MessageDigest SHA_256;

  static {
    try {
      SHA_256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private DeduplicationTokens() {}

  /** The token of an INSERT of these records from {@code source}; null when one has no identity. */
  public static String of(String source, List<String> identities) {
    MessageDigest digest;
    try {
      digest = (MessageDigest) SHA_256.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException(e);
    }
    update(digest, source);
    for (String identity : identities) {
      if (identity == null) {
        return null;
      }
      update(digest, identity);
    }
    return "rows-" + HexFormat.of().formatHex(digest.digest(), 0, 20);
  }

  private static void update(MessageDigest digest, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    int length = bytes.length;
    digest.update(
        new byte[] {
          (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length
        });
    digest.update(bytes);
  }
}
