package io.readpast.security;

import io.readpast.config.ReadpastConfig;
import io.readpast.store.Database;
import io.readpast.store.JobStore;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The keys the broker accepts. Configured keys ({@code READPAST_API_KEYS}, {@code READPAST_API_KEYS_FILE})
 * are digests only. With authentication on and none configured, the broker generates one admin
 * key on first start, stores its digest in the database and prints the key once.
 * Presented keys are hashed and compared with every digest in constant time.
 */
@ApplicationScoped
public class ApiKeys {

    private static final Logger LOG = Logger.getLogger(ApiKeys.class);
    static final String BOOTSTRAP_NAME = "bootstrap-admin";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,99}");
    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{64}");
    private static final Pattern QUEUE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,199}");

    private final ReadpastConfig config;
    private volatile List<ApiKey> keys = List.of();
    private volatile boolean enabled;

    public ApiKeys(ReadpastConfig config) {
        this.config = config;
    }

    public boolean enabled() {
        return enabled;
    }

    /** Loads the keys; run once at start-up, after the database is up. */
    public void init(JobStore store) {
        enabled = config.auth().enabled();
        if (!enabled) {
            LOG.warn("Authentication is OFF (READPAST_AUTH_ENABLED=false): anyone who can reach this port can "
                    + "enqueue, claim, cancel and delete jobs.");
            return;
        }
        List<ApiKey> configured = new ArrayList<>();
        config.auth().keys().ifPresent(text -> configured.addAll(parse(text, "READPAST_API_KEYS")));
        config.auth().keysFile().filter(f -> !f.isBlank()).ifPresent(file -> {
            try {
                configured.addAll(parse(Files.readString(Path.of(file)), "READPAST_API_KEYS_FILE " + file));
            } catch (IOException e) {
                throw new Database.StartupFailure("Cannot read READPAST_API_KEYS_FILE " + file + ": " + e.getMessage());
            }
        });
        if (!configured.isEmpty()) {
            keys = List.copyOf(configured);
            LOG.infof("Authentication on: %d API key(s) configured", configured.size());
            return;
        }
        keys = bootstrap(store);
    }

    /** The key whose digest matches, or null. Every digest is compared, in constant time. */
    public ApiKey authenticate(String presented) {
        if (presented == null || presented.isEmpty() || presented.length() > 512) {
            return null;
        }
        byte[] digest = sha256(presented);
        ApiKey match = null;
        for (ApiKey k : keys) {
            if (MessageDigest.isEqual(digest, k.digest()) && match == null) {
                match = k;
            }
        }
        return match;
    }

    private List<ApiKey> bootstrap(JobStore store) {
        List<JobStore.StoredKey> stored = store.apiKeyList();
        if (stored.isEmpty()) {
            String key = mint();
            boolean mine = store.apiKeyInsert(new JobStore.StoredKey(BOOTSTRAP_NAME, "admin", digestHex(key)));
            if (mine) {
                LOG.warn("\n==========================================================================\n"
                        + " No API keys are configured, so Readpast generated an admin key.\n"
                        + " It is shown this once and only its SHA-256 digest is stored:\n\n"
                        + "     " + key + "\n\n"
                        + " Send it as 'Authorization: Bearer <key>'. Configure your own keys with\n"
                        + " READPAST_API_KEYS (see README, Security); they replace this one.\n"
                        + "==========================================================================");
            }
            stored = store.apiKeyList();
        } else {
            LOG.info("Authentication on: using the admin key generated on first start (configure READPAST_API_KEYS "
                    + "to replace it)");
        }
        List<ApiKey> out = new ArrayList<>();
        for (JobStore.StoredKey s : stored) {
            out.add(new ApiKey(s.name(), roles(s.roles()), HexFormat.of().parseHex(s.digest()), null));
        }
        return List.copyOf(out);
    }

    /** Parses {@code name:role[+role]:sha256hex[:queues=a|b]} entries, comma- or newline-separated. */
    static List<ApiKey> parse(String text, String source) {
        List<ApiKey> out = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        int n = 0;
        for (String raw : text.split("[,\\n]")) {
            String entry = raw.strip();
            if (entry.isEmpty() || entry.startsWith("#")) {
                continue;
            }
            n++;
            String[] parts = entry.split(":");
            String where = source + " entry " + n;
            if (parts.length < 3 || parts.length > 4) {
                throw new Database.StartupFailure(where + " must be name:role[+role]:sha256hex[:queues=a|b]");
            }
            if (!NAME.matcher(parts[0]).matches()) {
                throw new Database.StartupFailure(where + ": key name must be 1-100 letters, digits and . _ @ -");
            }
            if (!names.add(parts[0])) {
                throw new Database.StartupFailure(where + ": key name '" + parts[0] + "' is used twice");
            }
            Set<Role> roles;
            try {
                roles = roles(parts[1]);
            } catch (IllegalArgumentException e) {
                throw new Database.StartupFailure(where + ": " + e.getMessage());
            }
            if (!HEX.matcher(parts[2]).matches()) {
                throw new Database.StartupFailure(where + ": the third field must be the key's SHA-256 digest "
                        + "(64 hex digits), never the key itself; mint one with 'java -jar quarkus-run.jar mint-key'");
            }
            Set<String> queues = null;
            if (parts.length == 4) {
                if (!parts[3].startsWith("queues=")) {
                    throw new Database.StartupFailure(where + ": the fourth field must be queues=a|b");
                }
                if (roles.contains(Role.ADMIN)) {
                    throw new Database.StartupFailure(where + ": admin keys cannot be scoped to queues");
                }
                queues = new LinkedHashSet<>();
                for (String q : parts[3].substring("queues=".length()).split("\\|")) {
                    if (!QUEUE.matcher(q).matches()) {
                        throw new Database.StartupFailure(where + ": invalid queue name in scope");
                    }
                    queues.add(q);
                }
            }
            out.add(new ApiKey(parts[0], roles, HexFormat.of().parseHex(parts[2].toLowerCase()),
                    queues == null ? null : Set.copyOf(queues)));
        }
        return out;
    }

    private static Set<Role> roles(String text) {
        Set<Role> roles = EnumSet.noneOf(Role.class);
        for (String r : text.split("\\+")) {
            roles.add(Role.parse(r));
        }
        return Set.copyOf(roles);
    }

    /** A new random key: "rp_" and 32 random bytes, base64url. */
    public static String mint() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return "rp_" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    public static String digestHex(String key) {
        return HexFormat.of().formatHex(sha256(key));
    }

    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
