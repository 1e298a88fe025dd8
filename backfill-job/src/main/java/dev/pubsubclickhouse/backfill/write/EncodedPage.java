package dev.pubsubclickhouse.backfill.write;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pubsubclickhouse.core.encode.RowEncoder;
import java.util.List;

/**
 * A page encoded for the target table: row {@code i} is {@code bytes[rowStarts[i],
 * rowStarts[i+1])}, or, when {@code rejections[i]} is set, a row the encoder refused (empty bytes).
 * Built with {@link #builder()}.
 *
 * @param startIndex the source position of the page's first row
 * @param positions each row's source position when the rows are not consecutive (rows refused
 *     before, written again), else null: row {@code i} is at {@code startIndex + i}
 * @param rows the page's rows as read
 * @param encoder the encoder that made the bytes (so the writer can tell whether they still fit)
 */
public record EncodedPage(
    long startIndex,
    long[] positions,
    List<ObjectNode> rows,
    RowEncoder encoder,
    byte[] bytes,
    int[] rowStarts,
    String[] rejections) {

  public int rowsRead() {
    return rows.size();
  }

  /** The source position of row {@code index}. */
  public long position(int index) {
    return positions == null ? startIndex + index : positions[index];
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds an {@link EncodedPage}; arrays are kept as given, uncopied. */
  public static final class Builder {
    private long startIndex;
    private long[] positions;
    private List<ObjectNode> rows;
    private RowEncoder encoder;
    private byte[] bytes;
    private int[] rowStarts;
    private String[] rejections;

    private Builder() {}

    public Builder startIndex(long startIndex) {
      this.startIndex = startIndex;
      return this;
    }

    public Builder positions(long[] positions) {
      this.positions = positions;
      return this;
    }

    public Builder rows(List<ObjectNode> rows) {
      this.rows = rows;
      return this;
    }

    public Builder encoder(RowEncoder encoder) {
      this.encoder = encoder;
      return this;
    }

    public Builder bytes(byte[] bytes) {
      this.bytes = bytes;
      return this;
    }

    public Builder rowStarts(int[] rowStarts) {
      this.rowStarts = rowStarts;
      return this;
    }

    public Builder rejections(String[] rejections) {
      this.rejections = rejections;
      return this;
    }

    public EncodedPage build() {
      return new EncodedPage(startIndex, positions, rows, encoder, bytes, rowStarts, rejections);
    }
  }
}
