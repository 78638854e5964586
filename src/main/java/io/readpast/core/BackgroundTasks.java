package io.readpast.core;

import io.quarkus.arc.All;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every background task of this instance, started once the store is ready ({@link Startup})
 * and stopped at shutdown. The tasks are the beans that implement {@link BackgroundTask}.
 */
@ApplicationScoped
public class BackgroundTasks {

    private static final Logger LOG = Logger.getLogger(BackgroundTasks.class);

    private final List<BackgroundTask> tasks;
    private final Timetable timetable;
    private final Map<String, BackgroundLoop> running = new TreeMap<>();

    public BackgroundTasks(@All List<BackgroundTask> tasks, Timetable timetable) {
        this.tasks = tasks;
        this.timetable = timetable;
    }

    /** Starts every enabled task (once). */
    public synchronized void start() {
        if (!running.isEmpty()) {
            return;
        }
        for (BackgroundTask task : tasks) {
            if (task.enabled()) {
                BackgroundLoop loop = new BackgroundLoop(task, timetable);
                running.put(task.name(), loop);
                loop.start();
            }
        }
        LOG.debugf("Background tasks running: %s", running.keySet());
    }

    void stop(@Observes ShutdownEvent event) {
        synchronized (this) {
            running.values().forEach(BackgroundLoop::stop);
        }
    }
}
