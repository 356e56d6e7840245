package dev.ratelimit.runtime.algorithm;

import java.math.BigInteger;
import java.util.Objects;

/**
 * An immutable exact rational number for the {@link ReferenceModel}.
 * <p>
 * The reference model must not round anywhere before the final conversion to milliseconds: the times involved are
 * around 1.8e15 µs while the quantities compared against them can be fractions of a microsecond (e.g. 0.1 µs per
 * unit at 10,000,000 per second), which is beyond what a double can resolve. BigInteger numerator and denominator
 * keep every intermediate value exact.
 * <p>
 * Invariant: the fraction is in lowest terms and the denominator is positive, so that {@link #equals} and
 * {@link #hashCode} can compare the fields directly and the sign is the sign of the numerator.
 */
final class Rational implements Comparable<Rational> {

    static final Rational ZERO = new Rational(BigInteger.ZERO, BigInteger.ONE);
    static final Rational ONE = new Rational(BigInteger.ONE, BigInteger.ONE);

    private final BigInteger num;
    private final BigInteger den;

    /**
     * Trusts the caller to pass a normalized fraction; the factories normalize through
     * {@link #of(BigInteger, BigInteger)}.
     */
    private Rational(BigInteger num, BigInteger den) {
        this.num = num;
        this.den = den;
    }

    static Rational of(long value) {
        return new Rational(BigInteger.valueOf(value), BigInteger.ONE);
    }

    static Rational of(long num, long den) {
        return of(BigInteger.valueOf(num), BigInteger.valueOf(den));
    }

    static Rational of(BigInteger value) {
        return new Rational(value, BigInteger.ONE);
    }

    /** Normalizes: lowest terms, positive denominator. */
    static Rational of(BigInteger num, BigInteger den) {
        Objects.requireNonNull(num);
        Objects.requireNonNull(den);
        if (den.signum() == 0) {
            throw new ArithmeticException("zero denominator: " + num + "/0");
        }
        if (den.signum() < 0) {
            num = num.negate();
            den = den.negate();
        }
        BigInteger g = num.gcd(den); // gcd(0, d) = d, so 0 normalizes to 0/1
        if (!g.equals(BigInteger.ONE)) {
            num = num.divide(g);
            den = den.divide(g);
        }
        return new Rational(num, den);
    }

    BigInteger numerator() {
        return num;
    }

    BigInteger denominator() {
        return den;
    }

    Rational add(Rational o) {
        return of(num.multiply(o.den).add(o.num.multiply(den)), den.multiply(o.den));
    }

    Rational add(long o) {
        return add(of(o));
    }

    Rational subtract(Rational o) {
        return of(num.multiply(o.den).subtract(o.num.multiply(den)), den.multiply(o.den));
    }

    Rational subtract(long o) {
        return subtract(of(o));
    }

    Rational multiply(Rational o) {
        return of(num.multiply(o.num), den.multiply(o.den));
    }

    Rational multiply(long o) {
        return multiply(of(o));
    }

    Rational divide(Rational o) {
        if (o.num.signum() == 0) {
            throw new ArithmeticException("division by zero: " + this + " / 0");
        }
        return of(num.multiply(o.den), den.multiply(o.num));
    }

    Rational divide(long o) {
        return divide(of(o));
    }

    Rational negate() {
        return new Rational(num.negate(), den);
    }

    int signum() {
        return num.signum();
    }

    boolean isInteger() {
        return den.equals(BigInteger.ONE);
    }

    /** The largest integer {@code <= this} (rounds towards negative infinity, also for negative values). */
    BigInteger floor() {
        // BigInteger.mod always returns a value in [0, den), so num - (num mod den) is the multiple of den just below.
        return num.subtract(num.mod(den)).divide(den);
    }

    /** The smallest integer {@code >= this}. */
    BigInteger ceil() {
        return negate().floor().negate();
    }

    @Override
    public int compareTo(Rational o) {
        // Denominators are positive, so cross-multiplication preserves the order.
        return num.multiply(o.den).compareTo(o.num.multiply(den));
    }

    static Rational min(Rational a, Rational b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    static Rational max(Rational a, Rational b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Rational r && num.equals(r.num) && den.equals(r.den);
    }

    @Override
    public int hashCode() {
        return 31 * num.hashCode() + den.hashCode();
    }

    /** {@code "n"} for an integer, else {@code "n/d"} (lowest terms), so that a dump shows the exact value. */
    @Override
    public String toString() {
        return isInteger() ? num.toString() : num + "/" + den;
    }
}
