package io.readpast.core;

import io.readpast.store.ScheduleRow;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** What a schedule does with a slot while the job of an earlier slot is still live. */
public enum Overlap {
    /** Every slot enqueues a job. */
    ALLOW,
    /** A slot is skipped (recorded as such) while the job of an earlier slot is still live. */
    SKIP;

    /**
     * The slots of one firing, each fired or skipped: with SKIP, a live job skips every slot, and
     * else the first slot fires and its job is live for the rest.
     */
    List<ScheduleRow.Slot> decide(List<Instant> slots, boolean lastJobLive) {
        List<ScheduleRow.Slot> out = new ArrayList<>(slots.size());
        boolean live = lastJobLive;
        for (Instant at : slots) {
            boolean fire = this == ALLOW || !live;
            out.add(new ScheduleRow.Slot(at, fire));
            live = live || fire;
        }
        return out;
    }

    /** The stored name; an unknown one (not written by this version) reads as the default. */
    static Overlap of(String stored) {
        return "SKIP".equals(stored) ? SKIP : ALLOW;
    }
}
