package dev.ratelimit.runtime.algorithm;

/**
 * The admitted times of a sliding log, oldest first, in a ring of primitive longs: 8 bytes an entry, where a
 * deque of boxed times took about 24, and no object per admitted request. Mutated under its key's lock.
 */
final class TimeLog {
    private static final int MIN_CAPACITY = 4;
    /** A power of two in length. */
    private long[] times = new long[MIN_CAPACITY];
    private int head;
    private int size;

    int size() {
        return size;
    }

    /** The entry of this rank, 0 being the oldest; {@code rank} must be below {@link #size()}. */
    long get(int rank) {
        return times[(head + rank) & (times.length - 1)];
    }

    void add(long time) {
        if (size == times.length) {
            resize(times.length * 2);
        }
        times[(head + size) & (times.length - 1)] = time;
        size++;
    }

    /** Drops the oldest entries while they are at or before {@code time}; gives memory back once mostly empty. */
    void removeUpTo(long time) {
        int mask = times.length - 1;
        while (size > 0 && times[head] <= time) {
            head = (head + 1) & mask;
            size--;
        }
        if (times.length > MIN_CAPACITY && size <= times.length / 4) {
            resize(Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, size)) * 2));
        }
    }

    /** How many entries are later than {@code time}. */
    long countAfter(long time) {
        long n = 0;
        for (int i = size - 1; i >= 0 && get(i) > time; i--) {
            n++;
        }
        return n;
    }

    /** Entries the ring holds before it grows. */
    int capacity() {
        return times.length;
    }

    private void resize(int capacity) {
        long[] next = new long[capacity];
        for (int i = 0; i < size; i++) {
            next[i] = get(i);
        }
        times = next;
        head = 0;
    }

    /** Removes up to {@code most} entries equal to {@code time}, keeping the others in order. */
    void remove(long time, long most) {
        int kept = 0;
        long removed = 0;
        long[] next = new long[times.length];
        for (int i = 0; i < size; i++) {
            long t = get(i);
            if (t == time && removed < most) {
                removed++;
            } else {
                next[kept++] = t;
            }
        }
        times = next;
        head = 0;
        size = kept;
    }
}
