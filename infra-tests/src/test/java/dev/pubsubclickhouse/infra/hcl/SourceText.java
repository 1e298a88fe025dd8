package dev.pubsubclickhouse.infra.hcl;

import java.util.Arrays;

/** A file's text with the offsets where its lines start, to turn an offset into a line. */
final class SourceText {
  private final String text;
  private final int[] lineStarts;

  SourceText(String text) {
    this.text = text;
    int[] starts = new int[16];
    int count = 1;
    for (int i = 0; i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        if (count == starts.length) {
          starts = Arrays.copyOf(starts, count * 2);
        }
        starts[count++] = i + 1;
      }
    }
    this.lineStarts = Arrays.copyOf(starts, count);
  }

  String text() {
    return text;
  }

  /** The 1-based line of {@code offset}. */
  int line(int offset) {
    int found = Arrays.binarySearch(lineStarts, offset);
    return found >= 0 ? found + 1 : -found - 1;
  }
}
