package dev.pubsubclickhouse.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The native libraries a shaded jar carries, with the CPU each one is built for, read from its ELF
 * header. A multi-arch image runs the same jar on amd64 and arm64, so the libraries the JVM loads
 * from it (LZ4 and zstd for ClickHouse, Netty's epoll for gRPC) must be there for both.
 */
public final class JarNatives {
  /** ELF e_machine of x86-64. */
  public static final int X86_64 = 62;

  /** ELF e_machine of AArch64 (arm64). */
  public static final int AARCH64 = 183;

  private JarNatives() {}

  /** Every {@code .so} entry of the jar and its ELF machine (-1 for an entry that is no ELF). */
  public static Map<String, Integer> elfMachines(Path jar) {
    Map<String, Integer> machines = new TreeMap<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      for (JarEntry entry : Collections.list(file.entries())) {
        if (!entry.isDirectory() && entry.getName().endsWith(".so")) {
          try (InputStream in = file.getInputStream(entry)) {
            machines.put(entry.getName(), machine(in.readNBytes(20)));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + jar, e);
    }
    return machines;
  }

  /** e_machine of a 64-bit little-endian ELF header (bytes 18-19), -1 for anything else. */
  static int machine(byte[] header) {
    boolean elf64Le =
        header.length == 20
            && header[0] == 0x7f
            && header[1] == 'E'
            && header[2] == 'L'
            && header[3] == 'F'
            && header[4] == 2 // ELFCLASS64
            && header[5] == 1; // ELFDATA2LSB
    return elf64Le ? (header[18] & 0xff) | (header[19] & 0xff) << 8 : -1;
  }
}
