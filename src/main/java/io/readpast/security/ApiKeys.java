package io.readpast.security;

import io.readpast.config.ReadpastConfig;
import io.readpast.config.BaseUrl;
import io.readpast.core.JobRules;
import io.readpast.store.ApiKeyStore;
import io.readpast.store.StoreReady;
import io.readpast.store.StoredKey;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
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
 * The keys the broker accepts, from three sources that coexist: configured keys
 * ({@code READPAST_API_KEYS}, {@code READPAST_API_KEYS_FILE}; digests only), the admin key the
 * broker generates on first start when no key exists at all (its digest stored in the database,
 * the key printed once), and keys made through the admin API ({@code POST /keys}; digests stored).
 * Stored keys are re-read every {@code readpast.auth.refresh} (default 5 s), and at once when an
 * unknown key is presented, so a key made on one instance works on every other at once: each
 * unknown key is looked up once per second at most (a wrong key retried in a loop costs one
 * read a second), and all lookups together at most {@link #LOOKUPS_PER_SECOND} a second
 * (concurrent misses share one read). When the stored keys cannot be read for an unknown key,
 * the answer is the database's unavailability (503), not a 401. Presented keys are hashed and
 * compared with every digest in constant time.
 */
@ApplicationScoped
public class ApiKeys {

    private static final Logger LOG = Logger.getLogger(ApiKeys.class);
    static final String BOOTSTRAP_NAME = "bootstrap-admin";
    /** Where a key comes from, as GET /keys reports it. */
    public static final String CONFIGURED = "configured";
    public static final String GENERATED = "generated";
    public static final String API = "api";
    /** Key names: what READPAST_API_KEYS and POST /keys accept. */
    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]{64}");
    /** How often one unknown key may trigger a lookup. */
    private static final long MISS_RECHECK_NANOS = 1_000_000_000L;
    /** Lookups for unknown keys, all keys together, per second at most. */
    static final int LOOKUPS_PER_SECOND = 20;

    private final ReadpastConfig config;
    private volatile List<ApiKey> configured = List.of();
    private volatile List<ApiKey> stored = List.of();
    private final ApiKeyStore keyStore;
    /** The store once the database is up (null before: no key is known yet). */
    private volatile ApiKeyStore store;
    /** Unknown digests (hex) and when each was last looked up. */
    private final java.util.Map<String, Long> missedAt = new java.util.concurrent.ConcurrentHashMap<>();
    /** The start of the current second of lookups, and how many it has had. */
    private long lookupWindow = System.nanoTime();
    private int lookupsInWindow;
    /** Reloads done so far: a miss that waited for another's reload need not read again. */
    private final java.util.concurrent.atomic.AtomicLong reloads = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean enabled;

    public ApiKeys(ReadpastConfig config, ApiKeyStore keyStore) {
        this.config = config;
        this.keyStore = keyStore;
    }

    public boolean enabled() {
        return enabled;
    }

    /** Loads the keys; run once at start-up, after the database is up, before anything else. */
    void init(@Observes @Priority(10) StoreReady ready) {
        enabled = config.auth().enabled();
        ApiKeyStore store = keyStore;
        this.store = store;
        if (!enabled) {
            LOG.warn("Authentication is OFF (READPAST_AUTH_ENABLED=false): anyone who can reach this port can "
                    + "enqueue, claim, cancel and delete jobs.");
            return;
        }
        List<ApiKey> fromConfig = new ArrayList<>();
        config.auth().keys().ifPresent(text -> fromConfig.addAll(parse(text, "READPAST_API_KEYS")));
        config.auth().keysFile().filter(f -> !f.isBlank()).ifPresent(file -> {
            try {
                fromConfig.addAll(parse(Files.readString(Path.of(file)), "READPAST_API_KEYS_FILE " + file));
            } catch (java.nio.file.NoSuchFileException e) {
                throw new io.readpast.config.StartupFailure("Cannot read READPAST_API_KEYS_FILE " + file + ": there is no such file");
            } catch (java.nio.file.AccessDeniedException e) {
                throw new io.readpast.config.StartupFailure("Cannot read READPAST_API_KEYS_FILE " + file
                        + ": permission denied for the broker's user");
            } catch (IOException e) {
                throw new io.readpast.config.StartupFailure("Cannot read READPAST_API_KEYS_FILE " + file + ": "
                        + (Files.isDirectory(Path.of(file)) ? "it is a directory" : e.getClass().getSimpleName()
                        + (e.getMessage() == null ? "" : " " + e.getMessage())));
            }
        });
        configured = List.copyOf(fromConfig);
        if (configured.isEmpty() && store.apiKeyList().isEmpty()) {
            bootstrap(store);
        }
        reload();
        LOG.infof("Authentication on: %d configured API key(s), %d stored (generated at first start or made with "
                + "POST /keys)", configured.size(), stored.size());
    }

    /**
     * The key whose digest matches, or null. Every digest is compared, in constant time. An
     * unknown key is looked up in the database first (maybe it was just made on another
     * instance); a {@link io.readpast.store.StoreException} when that read fails.
     */
    public ApiKey authenticate(String presented) {
        if (presented == null || presented.isEmpty() || presented.length() > 512) {
            return null;
        }
        byte[] digest = sha256(presented);
        ApiKey match = match(digest);
        if (match != null || store == null) {
            return match;
        }
        String hex = HexFormat.of().formatHex(digest);
        long now = System.nanoTime();
        Long last = missedAt.get(hex);
        if ((last != null && now - last < MISS_RECHECK_NANOS) || !mayLookUp(now)) {
            return null;
        }
        if (missedAt.size() > 10_000) {
            missedAt.clear();
        }
        missedAt.put(hex, now);
        long seen = reloads.get();
        synchronized (this) {
            // misses that arrive together share one read
            if (reloads.get() == seen) {
                reload();
            }
        }
        match = match(digest);
        if (match != null) {
            missedAt.remove(hex);
        }
        return match;
    }

    /** Counts a lookup against {@link #LOOKUPS_PER_SECOND}; false when this second has had them all. */
    private synchronized boolean mayLookUp(long now) {
        if (now - lookupWindow >= 1_000_000_000L) {
            lookupWindow = now;
            lookupsInWindow = 0;
        }
        return ++lookupsInWindow <= LOOKUPS_PER_SECOND;
    }

    private ApiKey match(byte[] digest) {
        ApiKey match = null;
        for (List<ApiKey> keys : List.of(configured, stored)) {
            for (ApiKey k : keys) {
                if (MessageDigest.isEqual(digest, k.digest()) && match == null) {
                    match = k;
                }
            }
        }
        return match;
    }

    /** Re-reads the stored keys (generated and API-made); {@link ApiKeyRefreshTask} runs it. */
    void refresh() {
        if (enabled && store != null) {
            reloadQuietly();
        }
    }

    private void reloadQuietly() {
        try {
            reload();
        } catch (RuntimeException e) {
            // the database is unavailable: keep the keys we have
            LOG.debugf("Could not re-read the stored API keys: %s", e.getMessage());
        }
    }

    /**
     * One reload at a time: a refresh that read the keys before a delete committed must not
     * assign its list after the delete's own reload (the deleted key would work again until the
     * next refresh; CI caught it once in KeyAdminIT).
     */
    private synchronized void reload() {
        List<ApiKey> out = new ArrayList<>();
        for (StoredKey s : store.apiKeyList()) {
            out.add(new ApiKey(s.name(), roles(s.roles()), HexFormat.of().parseHex(s.digest()), queues(s.queues())));
        }
        stored = List.copyOf(out);
        reloads.incrementAndGet();
    }

    /** A key as GET /keys shows it: never the key or its digest. */
    public record Info(String name, Set<Role> roles, Set<String> queues, String origin, String createdBy,
                       java.time.Instant createdAt) {
    }

    /** Every key: configured ones first, then the stored ones as the database has them now. */
    public List<Info> list() {
        List<Info> out = new ArrayList<>();
        for (ApiKey k : configured) {
            out.add(new Info(k.name(), k.roles(), k.queues(), CONFIGURED, null, null));
        }
        for (StoredKey s : store.apiKeyList()) {
            out.add(new Info(s.name(), roles(s.roles()), queues(s.queues()), s.origin(), s.createdBy(), s.createdAt()));
        }
        return out;
    }

    /** A key made through the API: the key itself (shown once) and how it is listed. */
    public record Created(String key, Info info) {
    }

    /**
     * Makes and stores a new key; its digest is stored, the key is returned once. Empty when a
     * configured or stored key already has this name. Arguments are validated by the caller
     * ({@link JobRules#isKeyName}; admin keys are not scoped).
     */
    public java.util.Optional<Created> create(String name, Set<Role> roles, Set<String> queues, String by) {
        if (configured.stream().anyMatch(k -> k.name().equals(name))) {
            return java.util.Optional.empty();
        }
        String key = mint();
        String scope = queues == null ? null : String.join("|", queues);
        if (!store.apiKeyInsert(new StoredKey(name, roleText(roles), digestHex(key), scope, API, by, null))) {
            return java.util.Optional.empty();
        }
        reloadQuietly();
        LOG.infof("API key %s (%s%s) created by %s", name, roleText(roles),
                scope == null ? "" : ", queues " + scope, by == null ? "anonymous" : by);
        Info info = list().stream().filter(i -> i.name().equals(name) && !CONFIGURED.equals(i.origin()))
                .findFirst().orElse(new Info(name, roles, queues, API, by, null));
        return java.util.Optional.of(new Created(key, info));
    }

    /** What {@link #delete} did. */
    public enum Deletion {
        DELETED, NOT_FOUND, CONFIGURED, LAST_ADMIN
    }

    /**
     * Deletes a stored key (generated or API-made); it stops working on this instance at once
     * and on the others at their next refresh. Configured keys are not deleted here, nor the
     * last admin key (nobody could manage keys any more).
     */
    public Deletion delete(String name, String by) {
        if (configured.stream().anyMatch(k -> k.name().equals(name))) {
            return Deletion.CONFIGURED;
        }
        List<StoredKey> now = store.apiKeyList();
        StoredKey target = now.stream().filter(k -> k.name().equals(name)).findFirst().orElse(null);
        if (target == null) {
            return Deletion.NOT_FOUND;
        }
        boolean admin = roles(target.roles()).contains(Role.ADMIN);
        long admins = configured.stream().filter(k -> k.roles().contains(Role.ADMIN)).count()
                + now.stream().filter(k -> roles(k.roles()).contains(Role.ADMIN)).count();
        if (admin && admins <= 1) {
            return Deletion.LAST_ADMIN;
        }
        if (!store.apiKeyDelete(name)) {
            return Deletion.NOT_FOUND;
        }
        reloadQuietly();
        LOG.infof("API key %s deleted by %s", name, by == null ? "anonymous" : by);
        return Deletion.DELETED;
    }

    private void bootstrap(ApiKeyStore store) {
        String key = mint();
        boolean mine = store.apiKeyInsert(new StoredKey(BOOTSTRAP_NAME, "admin", digestHex(key), null,
                GENERATED, null, null));
        if (mine) {
            LOG.warn("\n==========================================================================\n"
                    + " No API keys are configured, so Readpast generated an admin key.\n"
                    + " It is shown this once and only its SHA-256 digest is stored:\n\n"
                    + "     " + key + "\n\n"
                    + " Send it as 'Authorization: Bearer <key>'. Make keys for producers and\n"
                    + " workers with POST /keys, or configure them in READPAST_API_KEYS\n"
                    + " (see README, Security); this key keeps working beside them.\n\n"
                    + " Dashboard:        " + BaseUrl.get() + "/ui/\n"
                    + " API (Swagger UI): " + BaseUrl.get() + "/q/swagger-ui\n"
                    + "==========================================================================");
        }
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
                throw new io.readpast.config.StartupFailure(where + " must be name:role[+role]:sha256hex[:queues=a|b]");
            }
            if (!JobRules.isKeyName(parts[0])) {
                throw new io.readpast.config.StartupFailure(where + ": key name must be 1-100 letters, digits and . _ @ -");
            }
            if (!names.add(parts[0])) {
                throw new io.readpast.config.StartupFailure(where + ": key name '" + parts[0] + "' is used twice");
            }
            Set<Role> roles;
            try {
                roles = roles(parts[1]);
            } catch (IllegalArgumentException e) {
                throw new io.readpast.config.StartupFailure(where + ": " + e.getMessage());
            }
            if (!HEX.matcher(parts[2]).matches()) {
                throw new io.readpast.config.StartupFailure(where + ": the third field must be the key's SHA-256 digest "
                        + "(64 hex digits), never the key itself; mint one with 'java -jar quarkus-run.jar mint-key'");
            }
            Set<String> queues = null;
            if (parts.length == 4) {
                if (!parts[3].startsWith("queues=")) {
                    throw new io.readpast.config.StartupFailure(where + ": the fourth field must be queues=a|b");
                }
                if (roles.contains(Role.ADMIN)) {
                    throw new io.readpast.config.StartupFailure(where + ": admin keys cannot be scoped to queues");
                }
                queues = new LinkedHashSet<>();
                for (String q : parts[3].substring("queues=".length()).split("\\|")) {
                    if (!JobRules.isQueueName(q)) {
                        throw new io.readpast.config.StartupFailure(where + ": invalid queue name in scope");
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

    /** Roles as stored and configured: "producer+worker". */
    static String roleText(Set<Role> roles) {
        return roles.stream().sorted().map(r -> r.name().toLowerCase(java.util.Locale.ROOT))
                .collect(java.util.stream.Collectors.joining("+"));
    }

    /** A stored scope "a|b", or null for every queue. */
    private static Set<String> queues(String text) {
        return text == null || text.isBlank() ? null : Set.copyOf(java.util.Arrays.asList(text.split("\\|")));
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
