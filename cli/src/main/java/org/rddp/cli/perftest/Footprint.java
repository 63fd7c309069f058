package org.rddp.cli.perftest;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What this process holds at one moment: its threads, its resident memory and the direct buffers' memory; two of them
 * around the setup of many queue pairs say what each costs.
 *
 * @param threads       live threads
 * @param residentOctets resident set size (Linux: /proc/self/statm), or -1 where the system does not say
 * @param directOctets  direct buffers in use (the JDK's "direct" pool)
 */
public record Footprint(int threads, long residentOctets, long directOctets) {
    private static final long PAGE = 4096;

    /** Now. */
    public static Footprint now() {
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                direct = pool.getMemoryUsed();
            }
        }
        return new Footprint(ManagementFactory.getThreadMXBean().getThreadCount(), resident(), direct);
    }

    private static long resident() {
        try {
            String[] fields = Files.readString(Path.of("/proc/self/statm")).trim().split("\\s+");
            return Long.parseLong(fields[1]) * PAGE;
        } catch (IOException | NumberFormatException | ArrayIndexOutOfBoundsException | SecurityException e) {
            return -1;
        }
    }
}
