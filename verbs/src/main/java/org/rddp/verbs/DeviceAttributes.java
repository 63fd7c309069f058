package org.rddp.verbs;

/**
 * Limits of a device ({@code ibv_device_attr}).
 *
 * @param maxQueuePairs     queue pairs at once
 * @param maxWorkRequests   work requests per queue
 * @param maxSge            scatter/gather elements per work request
 * @param maxCqEntries      entries per completion queue
 * @param maxTaggedObjects  memory regions and windows at once
 * @param maxIrd            inbound RDMA Reads per queue pair
 * @param maxOrd            outbound RDMA Reads per queue pair
 */
public record DeviceAttributes(int maxQueuePairs, int maxWorkRequests, int maxSge, int maxCqEntries,
        int maxTaggedObjects, int maxIrd, int maxOrd) {

    /** Generous defaults for a software device. */
    public static DeviceAttributes defaults() {
        return new DeviceAttributes(4096, 16384, 16, 1 << 20, (1 << 20) - 1, 128, 128);
    }
}
