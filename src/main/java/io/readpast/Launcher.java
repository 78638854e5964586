package io.readpast;

import io.quarkus.runtime.Quarkus;
import io.readpast.security.ApiKeys;

/**
 * What {@link Main} runs once the JVM is new enough. {@code java -jar quarkus-run.jar mint-key
 * [name] [role[+role]] [queues=a|b]} prints a new API key and the READPAST_API_KEYS entry holding
 * its digest, without starting the broker; anything else starts it.
 */
final class Launcher {

    private Launcher() {
    }

    static void run(String... args) {
        if (args.length > 0 && "mint-key".equals(args[0])) {
            String name = args.length > 1 ? args[1] : "key-" + Long.toString(System.currentTimeMillis(), 36);
            String roles = args.length > 2 ? args[2] : "worker";
            String scope = args.length > 3 ? ":" + args[3] : "";
            String key = ApiKeys.mint();
            System.out.println("key:    " + key);
            System.out.println("entry:  " + name + ":" + roles + ":" + ApiKeys.digestHex(key) + scope);
            System.out.println("Give the key to the client; put the entry (digest only) in READPAST_API_KEYS.");
            return;
        }
        Quarkus.run(args);
    }
}
