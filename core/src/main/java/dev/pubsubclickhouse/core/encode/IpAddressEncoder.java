package dev.pubsubclickhouse.core.encode;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * IPv4 (a UInt32, little-endian) and IPv6 (16 bytes in network order; an IPv4 address becomes its
 * IPv4-mapped form). Only literal addresses are read: a host name is never resolved.
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
      out.writeIntLE(parseIpv4(text));
      return;
    }
    out.writeBytes(text.indexOf(':') < 0 ? ipv4Mapped(parseIpv4InIpv6(text)) : parseIpv6(text));
  }

  private static int parseIpv4(String text) throws ValueRejectedException {
    int result = 0;
    int parts = 0;
    int part = -1;
    for (int i = 0; i <= text.length(); i++) {
      char c = i < text.length() ? text.charAt(i) : '.';
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
      return parseIpv4(text);
    } catch (ValueRejectedException e) {
      throw notIpv6();
    }
  }

  private static byte[] parseIpv6(String text) throws ValueRejectedException {
    if (text.length() > 45) {
      throw notIpv6();
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(c == ':' || c == '.' || Character.digit(c, 16) >= 0)) {
        throw notIpv6();
      }
    }
    try {
      InetAddress parsed = InetAddress.getByName(text);
      if (parsed instanceof Inet4Address) {
        return ipv4Mapped(java.nio.ByteBuffer.wrap(parsed.getAddress()).getInt());
      }
      return parsed.getAddress();
    } catch (UnknownHostException e) {
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
