package dev.pubsubclickhouse.testing.values;

import java.math.BigInteger;

/**
 * An instant held as ticks of 10^-precision seconds since the epoch, split into the whole second at
 * or before it (so that an instant before 1970 has a fraction counted forwards, as text shows it)
 * and the fraction's digits: {@code precision} of them, none at precision 0.
 */
record EpochTicks(long second, String fraction) {
  static EpochTicks of(BigInteger ticks, int precision) {
    BigInteger scale = BigInteger.TEN.pow(precision);
    BigInteger[] split = ticks.divideAndRemainder(scale);
    long second = split[0].longValueExact();
    BigInteger fraction = split[1];
    if (fraction.signum() < 0) {
      second -= 1;
      fraction = fraction.add(scale);
    }
    return new EpochTicks(
        second, precision == 0 ? "" : fraction.add(scale).toString().substring(1));
  }
}
