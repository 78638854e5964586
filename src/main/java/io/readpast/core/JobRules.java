package io.readpast.core;

import java.util.regex.Pattern;

/**
 * The one home of the rules for names and tags, for every path that takes them (jobs, batches,
 * schedules, queue settings, API keys and their queue scopes). The texts are compile-time
 * constants, so the OpenAPI annotations state the same rules the checks apply.
 */
public final class JobRules {

    private JobRules() {
    }

    /** Queue, type and schedule names: at most this many characters. */
    public static final int NAME_MAX = 200;
    /** Queue names (and schedule names): letters, digits and . _ : -, starting with a letter or digit. */
    public static final String QUEUE_REGEX = "[A-Za-z0-9][A-Za-z0-9._:-]*";
    public static final String QUEUE_PATTERN = "^" + QUEUE_REGEX + "$";
    public static final String QUEUE_RULE = "1-" + NAME_MAX
            + " characters of letters, digits and . _ : - (starting with a letter or digit).";
    /** Schedule names follow the queue-name rule, at most this many characters. */
    public static final int SCHEDULE_NAME_MAX = 100;
    /** Job types: letters, digits and . _ : / $ -. */
    public static final String TYPE_REGEX = "[A-Za-z0-9_][A-Za-z0-9._:/$-]*";
    public static final String TYPE_PATTERN = "^" + TYPE_REGEX + "$";
    public static final String TYPE_RULE = "1-" + NAME_MAX
            + " characters of letters, digits and . _ : / $ - (no spaces or control characters).";
    /** API key names: letters, digits and . _ @ -, at most {@link #KEY_NAME_MAX}. */
    public static final int KEY_NAME_MAX = 100;
    public static final String KEY_NAME_REGEX = "[A-Za-z0-9][A-Za-z0-9._@-]*";
    public static final String KEY_NAME_PATTERN = "^" + KEY_NAME_REGEX + "$";
    /** Tags of a job (or a schedule's job): at most this many, each at most {@link #TAG_MAX} characters. */
    public static final int TAGS_MAX = 50;
    public static final int TAG_MAX = 100;

    private static final Pattern QUEUE = Pattern.compile(QUEUE_REGEX);
    private static final Pattern TYPE = Pattern.compile(TYPE_REGEX);
    private static final Pattern KEY_NAME = Pattern.compile(KEY_NAME_REGEX);

    public static boolean isQueueName(String s) {
        return s != null && !s.isEmpty() && s.length() <= NAME_MAX && QUEUE.matcher(s).matches();
    }

    public static boolean isScheduleName(String s) {
        return isQueueName(s) && s.length() <= SCHEDULE_NAME_MAX;
    }

    public static boolean isTypeName(String s) {
        return s != null && !s.isEmpty() && s.length() <= NAME_MAX && TYPE.matcher(s).matches();
    }

    public static boolean isKeyName(String s) {
        return s != null && !s.isEmpty() && s.length() <= KEY_NAME_MAX && KEY_NAME.matcher(s).matches();
    }
}
