package shop;

import java.util.List;

public class Shop {
    private final List<Item> items;

    public Shop(List<Item> items) {
        this.items = items;
    }

    public int total() {
        return items.stream().mapToInt(Item::price).sum();
    }

    interface Item {
        int price();
    }

    enum Kind { FOOD, TOOL }
}
