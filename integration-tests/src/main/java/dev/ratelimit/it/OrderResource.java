package dev.ratelimit.it;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;

import dev.ratelimit.RateLimit;

/**
 * Orders: reads limited per client address, writes additionally limited per user (5 units each).
 */
// tag::resource[]
@Path("/orders")
public class OrderResource {

    public record Order(String item, int quantity) {
    }

    private final List<Order> orders = new CopyOnWriteArrayList<>();

    @GET
    @RateLimit("api")
    public List<Order> list() {
        return orders;
    }

    @POST
    @RateLimit("api")
    @RateLimit(value = "writes", cost = 5)
    public Order create(Order order) {
        orders.add(order);
        return order;
    }
}
// end::resource[]
