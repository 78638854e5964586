package io.readpast.core;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Tells whoever listens (the webhook sender) that jobs on this instance just became SUCCEEDED
 * or DEAD, so that their webhooks, written to the outbox by the same statements, go out at once
 * rather than at the sender's next periodic look. In memory only: another instance's sender
 * finds them by its own look.
 */
@ApplicationScoped
public class FinishedJobs {

    private volatile Runnable listener = () -> { };

    public void listen(Runnable listener) {
        this.listener = listener;
    }

    /** Some jobs just finished here (their transaction committed). */
    public void finished() {
        try {
            listener.run();
        } catch (RuntimeException e) {
            // a missed nudge only delays the webhook until the sender's next look
        }
    }
}
