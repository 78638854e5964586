package io.readpast.testsupport;

import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;

import java.util.Map;

import static io.restassured.RestAssured.given;

/** The job calls most tests start from, over HTTP to the broker under test. */
public final class Jobs {

    private Jobs() {
    }

    /** POST /jobs, expecting 201; the new job's id. */
    public static String enqueue(Map<String, Object> body) {
        return given().contentType(ContentType.JSON).body(body)
                .when().post("/jobs")
                .then().statusCode(201).extract().path("id");
    }

    /** POST /claim, expecting 200 with JSON. */
    public static JsonPath claim(Map<String, Object> body) {
        return given().contentType(ContentType.JSON).body(body)
                .when().post("/claim")
                .then().statusCode(200).contentType(ContentType.JSON).extract().jsonPath();
    }
}
