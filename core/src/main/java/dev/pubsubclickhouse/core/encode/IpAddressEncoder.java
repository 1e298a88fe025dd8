package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * IPv4 (a UInt32, little-endian) and IPv6 (16 bytes in network order; an IPv4 address becomes its
 * IPv4-mapped form). Only the literal text forms are read, with parsers of our own: nothing is ever
 * looked up as a host name.
 */
final class IpAddressEncoder implements ValueEncoder {
  private final boolean v6;

  IpAddressEncoder(boolean v6) {
    this.v6 = v6;
  }

  @Override
  public void encode(JsonNode value, RowBinaryOutput out) throws ValueRejectedException {
    if (!value.isTextual()) {
      throw new ValueRejectedException(
          "expected an IP address string, got " + NumericValues.kind(value));
    }
    String text = value.textValue();
    if (!v6) {
      out.writeIntLE(parseIpv4(text, 0, text.length()));
      return;
    }
    out.writeBytes(text.indexOf(':') < 0 ? ipv4Mapped(parseIpv4InIpv6(text)) : parseIpv6(text));
  }

  /** Four dotted decimal parts of 0 to 255 (leading zeros allowed) in text[from, to). */
  private static int parseIpv4(String text, int from, int to) throws ValueRejectedException {
    int result = 0;
    int parts = 0;
    int part = -1;
    for (int i = from; i <= to; i++) {
      char c = i < to ? text.charAt(i) : '.';
      if (c == '.') {
        if (part < 0 || ++parts > 4) {
          throw notIpv4();
        }
        result = (result << 8) | part;
        part = -1;
      } else if (c >= '0' && c <= '9') {
        part = (part < 0 ? 0 : part * 10) + (c - '0');
        if (part > 255) {
          throw notIpv4();
        }
      } else {
        throw notIpv4();
      }
    }
    if (parts != 4) {
      throw notIpv4();
    }
    return result;
  }

  private static int parseIpv4InIpv6(String text) throws ValueRejectedException {
    try {
      return parseIpv4(text, 0, text.length());
    } catch (ValueRejectedException e) {
      throw notIpv6();
    }
  }

  /**
   * RFC 4291 text: eight groups of one to four hex digits separated by ':', at most one "::"
   * standing for one or more groups of zeros, and optionally a dotted IPv4 address as the last two.
   */
  private static byte[] parseIpv6(String text) throws ValueRejectedException {
    int length = text.length();
    if (length < 2 || length > 45) {
      throw notIpv6();
    }
    int[] groups = new int[8];
    int count = 0;
    int gap = -1; // where "::" stands, as a group index
    int i = 0;
    if (text.startsWith("::")) {
      gap = 0;
      i = 2;
    } else if (text.charAt(0) == ':') {
      throw notIpv6();
    }
    while (i < length) {
      int start = i;
      int group = 0;
      while (i < length && i - start < 5 && NumericValues.hexDigit(text.charAt(i)) >= 0) {
        group = (group << 4) | NumericValues.hexDigit(text.charAt(i));
        i++;
      }
      if (i < length && text.charAt(i) == '.') {
        // The dotted IPv4 tail: it fills the last two groups and ends the text.
        if (count > 6) {
          throw notIpv6();
        }
        int v4 = parseIpv4InIpv6Tail(text, start, length);
        groups[count++] = v4 >>> 16;
        groups[count++] = v4 & 0xFFFF;
        i = length;
        break;
      }
      int digits = i - start;
      if (digits == 0 || digits > 4 || count == 8) {
        throw notIpv6();
      }
      groups[count++] = group;
      if (i == length) {
        break;
      }
      if (text.charAt(i) != ':') {
        throw notIpv6();
      }
      i++;
      if (i < length && text.charAt(i) == ':') {
        if (gap >= 0) {
          throw notIpv6();
        }
        gap = count;
        i++;
      } else if (i == length) {
        throw notIpv6(); // a single ':' at the end
      }
    }
    if (gap < 0 ? count != 8 : count > 7) {
      throw notIpv6();
    }
    byte[] address = new byte[16];
    int zeros = 8 - count;
    for (int g = 0, target = 0; g < count; g++, target++) {
      if (g == gap) {
        target += zeros;
      }
      address[2 * target] = (byte) (groups[g] >>> 8);
      address[2 * target + 1] = (byte) groups[g];
    }
    return address;
  }

  private static int parseIpv4InIpv6Tail(String text, int from, int to)
      throws ValueRejectedException {
    try {
      return parseIpv4(text, from, to);
    } catch (ValueRejectedException e) {
      throw notIpv6();
    }
  }

  /** ::ffff:a.b.c.d, the form ClickHouse gives an IPv4 address in an IPv6 column. */
  private static byte[] ipv4Mapped(int v4) {
    byte[] mapped = new byte[16];
    mapped[10] = (byte) 0xFF;
    mapped[11] = (byte) 0xFF;
    for (int i = 0; i < 4; i++) {
      mapped[12 + i] = (byte) (v4 >>> (24 - 8 * i));
    }
    return mapped;
  }

  private static ValueRejectedException notIpv4() {
    return new ValueRejectedException("not an IPv4 address");
  }

  private static ValueRejectedException notIpv6() {
    return new ValueRejectedException("not an IPv6 address");
  }
}
