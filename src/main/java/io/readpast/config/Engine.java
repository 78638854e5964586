package io.readpast.config;

/** The database engines Readpast runs on. The JDBC URL prefix picks one. */
public enum Engine {
    POSTGRESQL("postgresql", "jdbc:postgresql:"),
    SQLSERVER("mssql", "jdbc:sqlserver:");

    private final String datasourceName;
    private final String urlPrefix;

    Engine(String datasourceName, String urlPrefix) {
        this.datasourceName = datasourceName;
        this.urlPrefix = urlPrefix;
    }

    /** Name of the Quarkus named datasource, also the folder of its migrations and statements. */
    public String datasourceName() {
        return datasourceName;
    }

    /** The engine a JDBC URL names, or null when it names none Readpast supports. */
    public static Engine fromJdbcUrl(String url) {
        if (url == null) {
            return null;
        }
        for (Engine e : values()) {
            if (url.regionMatches(true, 0, e.urlPrefix, 0, e.urlPrefix.length())) {
                return e;
            }
        }
        return null;
    }
}
