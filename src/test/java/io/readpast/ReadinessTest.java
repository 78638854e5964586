package io.readpast;

import io.quarkus.test.junit.QuarkusTest;
import org.jboss.logmanager.ExtHandler;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Readiness probes are answered quietly: a probe every 10 s must not write a log line each time. */
@QuarkusTest
class ReadinessTest {

    @Test
    void probesLogNothing() {
        ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
        ExtHandler capture = new ExtHandler() {
            @Override
            protected void doPublish(ExtLogRecord record) {
                if (record.getLevel().intValue() >= java.util.logging.Level.INFO.intValue()) {
                    lines.add(record.getLoggerName() + ": " + record.getFormattedMessage());
                }
            }
        };
        org.jboss.logmanager.Logger.getLogger("").addHandler(capture);
        try {
            for (int i = 0; i < 5; i++) {
                given().when().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
            }
        } finally {
            org.jboss.logmanager.Logger.getLogger("").removeHandler(capture);
        }
        List<String> flyway = lines.stream().filter(l -> l.startsWith("org.flywaydb")).toList();
        assertEquals(List.of(), flyway, "readiness probes log nothing at INFO");
    }
}
